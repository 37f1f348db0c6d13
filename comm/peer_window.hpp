#pragma once
// comm::PeerWindow: device memory that the GPUs of all ranks can store into (CUDA IPC over
// NVLink or PCIe peer access), so kernels move data to other ranks and signal them with no
// host in the loop. The transports (transport.hpp) are host-launched groups: each costs a
// host round trip or an NCCL launch, which is what a latency-bound level loop (BFS) cannot
// afford per level.
//
// Each rank allocates `bytes` of its own device memory plus a flag per rank; every other
// rank's allocation is mapped into this process. Kernels use PeerView (by value) and the
// device helpers of peer_sync.cuh: store into view.base[r], then signal rank r by writing a
// sequence number into its flag for this rank; a rank waits until each peer's flag has
// reached the sequence number it expects. Every rank must signal in the same order (the
// sequence numbers count signals), like the transports' matching by issue order.
//
// Available when all ranks share one node and every rank can map every other rank's memory
// (`available` tries it, collectively). Not in a CPU-only build.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/context.hpp"

namespace tessera::comm {

// What a kernel needs, passed by value. Pointers are device addresses valid on this rank's GPU.
struct PeerView {
  std::byte* const* base = nullptr;                   // base[r]: rank r's window, as mapped here
  unsigned long long* const* flags = nullptr;         // flags[r][s]: rank r's flag for signals from rank s
  unsigned long long* status = nullptr;               // this rank's: nonzero once a wait timed out
  unsigned int* arrivals = nullptr;                   // this rank's: blocks of a kernel done (last-block test)
  int me = 0;
  int ranks = 1;
};

class PeerWindow {
 public:
  // Collective over ctx.world(). True when every rank is on this node, has a GPU, and could map
  // every other rank's memory (a trial allocation of each is mapped and released). Otherwise
  // `why` says what was missing (the same text on every rank).
  static bool available(Context& ctx, std::string* why = nullptr);

  // Collective: `bytes` of device memory on every rank (zeroed), mapped on every other rank.
  // Throws (on every rank, agreed) what available() would have said.
  PeerWindow(Context& ctx, std::size_t bytes);
  // Waits for this rank's device work, meets the other ranks (no rank frees memory another
  // may still store into), then unmaps and frees. On an error path (an exception in flight)
  // it does not meet: the job is ending.
  ~PeerWindow();
  PeerWindow(const PeerWindow&) = delete;
  PeerWindow& operator=(const PeerWindow&) = delete;

  std::byte* local() const { return local_; }
  std::byte* remote(int rank) const { return mapped_[static_cast<std::size_t>(rank)]; }
  std::size_t bytes() const { return bytes_; }
  const PeerView& view() const { return view_; }

  // The sequence number of this rank's next signal (1, 2, ...): every kernel that signals takes one.
  unsigned long long next_sequence() { return ++sequence_; }

  // Seconds a wait spins before it gives up and sets *status (a peer that never signals: a
  // failed rank, or ranks that queued different signals).
  static constexpr double kWaitTimeoutSeconds = 60.0;

 private:
  Context& ctx_;
  std::size_t bytes_ = 0;
  std::byte* allocation_ = nullptr;  // flags, status, arrivals, then the window
  std::byte* local_ = nullptr;
  std::vector<std::byte*> mapped_;   // per rank: its window here (local_ for this rank)
  std::vector<std::byte*> opened_;   // per rank: the IPC mapping to close (nullptr for this rank)
  std::byte* device_tables_ = nullptr;  // base[] and flags[] on the device
  PeerView view_;
  unsigned long long sequence_ = 0;
};

}  // namespace tessera::comm
