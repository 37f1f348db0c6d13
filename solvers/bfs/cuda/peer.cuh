#pragma once
// Device-initiated exchanges through peer memory: where the shares put things, the levels'
// clock readings, the end of a share (which the GPU-run level loop also makes at the end of
// its own kernels) and the claims of shared pairs. The kernels are in peer.cu.
#include <cstddef>
#include <cstdint>

#include "comm/peer_sync.cuh"
#include "solvers/bfs/cuda/top_down.cuh"

namespace tessera::bfs::gpu {

// Where the shares put things in every rank's window (the same layout on every rank).
struct SharedLayout {
  std::size_t table[2];   // two tables of `ranks` rows and a status word; shares alternate
  std::size_t frontier;   // the frontier bitmap (global words)
  std::size_t hubs;       // the hub bitmap (delegates.hpp; global words)
  std::size_t receive;    // pairs: slot k (the k-th other rank) at k * slot_pairs
  std::int64_t slot_pairs;
};

// A device-driven level's readings of the GPU's global clock (ns), for the profile: taken by the
// kernels that pass the points, so the search runs as it does unprofiled. A share is read when
// its first block starts (the steps before it have finished), once it has signalled (its
// stores have landed) and after the wait for the other ranks.
constexpr int kStampedLevels = 64;  // deeper levels are not stamped
struct LevelStamp {
  ull start, share_in[2], share_signalled[2], share_out[2], conclude_in, end;
  long long vertices, edges;
  int bottom_up;
};

// Where a share kernel stamps its readings: levels[*level].share_*[which] (stamps null: nowhere).
struct ShareStamps {
  LevelStamp* stamps = nullptr;
  const long long* level = nullptr;  // LevelControl::level
  int which = 0;                     // the level's first share (0) or its last (1)

  __device__ __forceinline__ LevelStamp* at() const {
    return stamps && *level < kStampedLevels ? stamps + *level : nullptr;
  }
};

// A share's row and meeting: this rank's row of the level table goes to table `table` (an
// offset in the window) of every rank; `shares` counts the shares on the device (their
// sequence numbers).
struct RowShare {
  comm::PeerView pv;
  const ull* row = nullptr;
  int row_words = 0;
  std::size_t table = 0;
  ull* shares = nullptr;
  ShareStamps stamps;
};

// The end of a share: every thread of every block of the kernel that makes it calls it last,
// after the kernel's other stores (into this rank's row, or into other ranks' memory). The
// block that arrives last copies the row, complete now, into every rank's table, signals,
// waits for every rank's signal and writes the wait's status after its own table. True in
// every thread of that block once the wait is over, so a kernel can go on there with every
// rank's row: the share then costs no graph node of its own. A share that no block stamped
// yet is stamped from here: it starts when the steps before it have finished.
__device__ __forceinline__ bool finish_share(const RowShare& s) {
  if (!comm::peer::last_block(s.pv)) return false;
  LevelStamp* stamp = s.stamps.at();
  if (threadIdx.x == 0 && stamp && !stamp->share_in[s.stamps.which])
    stamp->share_in[s.stamps.which] = comm::peer::global_nanoseconds();
  for (int r = 0; r < s.pv.ranks; ++r) {
    ull* to = reinterpret_cast<ull*>(s.pv.base[r] + s.table) + static_cast<std::int64_t>(s.pv.me) * s.row_words;
    for (int i = threadIdx.x; i < s.row_words; i += blockDim.x) to[i] = __ldcg(s.row + i);  // not a stale L1 line
  }
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    const ull sequence = ++*s.shares;
    comm::peer::signal(s.pv, sequence);
    if (stamp) stamp->share_signalled[s.stamps.which] = comm::peer::global_nanoseconds();
    comm::peer::wait(s.pv, sequence);
    reinterpret_cast<ull*>(s.pv.base[s.pv.me] + s.table)[static_cast<std::int64_t>(s.pv.ranks) * s.row_words] =
        *s.pv.status;
    if (stamp) stamp->share_out[s.stamps.which] = comm::peer::global_nanoseconds();
  }
  __syncthreads();
  return true;
}

// Which of this rank's hubs the level reached (share_kernel writes them as its words of the hub
// bitmap): visited in this search and at level `*level_now + 1` (the level arrays keep the
// last search's entries until the end of this one, so the level alone would not do).
struct HubShare {
  std::size_t offset = 0;            // the hub bitmap in the window
  std::int64_t word_begin = 0;       // this rank's first word
  std::int64_t count = 0;            // this rank's hubs (0: no hub words to share)
  const std::uint32_t* ids = nullptr;  // their global ids
  std::int64_t begin = 0;            // this rank's first vertex
  const std::uint32_t* visited = nullptr;
  const std::int32_t* level = nullptr;  // global-sized
  const long long* level_now = nullptr;  // LevelControl::level: the level being shared
  std::uint32_t* settled = nullptr;    // View::hub_settled
  ull* reached = nullptr;              // the row's kRowHubs: how many the level reached
};

// This rank's words of the hub bitmap into every rank's (a warp's ballot per group of 32
// hubs; the threads of the grid), and their count into the row. A group whose hubs are all
// reached is settled: its bits stay zero for the rest of the search, unread. Kronecker
// searches reach nearly every hub within three levels, so the later levels pass zeros.
__device__ __forceinline__ void share_hub_bits(const comm::PeerView& pv, const HubShare& hubs) {
  if (hubs.count <= 0) return;
  const long long next = *hubs.level_now + 1;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t lanes = (hubs.count + 31) / 32 * 32;  // whole warps
  const bool leader = (threadIdx.x & 31) == 0;
  ull reached = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < lanes; i += stride) {
    const std::int64_t group = i / 32;
    std::uint32_t bits = 0;
    if (!hubs.settled[group]) {  // the same for the warp
      bool seen = false, now = false;
      if (i < hubs.count) {
        const std::uint32_t v = hubs.ids[i] - static_cast<std::uint32_t>(hubs.begin);
        seen = test_bit(hubs.visited, v);
        now = seen && hubs.level[hubs.begin + v] == next;
      }
      bits = __ballot_sync(kFull, now);
      const bool all_seen = __ballot_sync(kFull, seen) == __ballot_sync(kFull, i < hubs.count);
      if (leader && all_seen) hubs.settled[group] = 1;
    }
    if (leader) {
      reached += static_cast<ull>(__popc(bits));
      for (int r = 0; r < pv.ranks; ++r)  // 32-bit halves of the 64-bit words (little-endian)
        reinterpret_cast<std::uint32_t*>(pv.base[r] + hubs.offset)[hubs.word_begin * 2 + group] = bits;
    }
  }
  if (leader && reached) atomicAdd(hubs.reached, reached);
}

// The pairs the other ranks' top_down wrote here: slot k (the k-th other rank, in rank order)
// holds that rank's count for this one in its row of the shared table.
__device__ __forceinline__ void claim_shared(const View& d, const uint2* pairs, std::int64_t slot_pairs,
                                             const ull* table, int row_words, std::uint32_t* next_queue,
                                             int next_level) {
  const auto count_from = [&](int k) {
    const int r = k < d.me ? k : k + 1;
    return static_cast<std::int64_t>(table[static_cast<std::int64_t>(r) * row_words + kRowPairs + d.me]);
  };
  std::int64_t total = 0;
  for (int k = 0; k + 1 < d.parts; ++k) total += count_from(k);
  claim_pairs(
      d, total,
      [&](std::int64_t i, uint2& p) {
        int k = 0;
        for (std::int64_t c = count_from(0); i >= c; c = count_from(++k)) i -= c;
        p = pairs[k * slot_pairs + i];
        return true;
      },
      next_queue, next_level);
}

}  // namespace tessera::bfs::gpu
