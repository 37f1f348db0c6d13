#pragma once
// Device transports: how buffers travel between ranks. One interface, several ways:
//   host    plain MPI on host memory (the cpu backend)
//   staged  device -> pinned host -> MPI -> pinned host -> device (works with any MPI)
//   mpi     CUDA-aware MPI on device pointers (detected with MPIX_Query_cuda_support)
//   nccl    ncclSend/ncclRecv on a communicator bootstrapped over MPI
// Patterns (ring_shift, HaloExchange) are written against this interface only.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "comm/context.hpp"
#include "core/backend.hpp"
#include "core/stream.hpp"

struct CUevent_st;  // cudaEvent_t is CUevent_st*, as stream_t is CUstream_st*

namespace tessera::comm {

enum class TransportKind { host, staged, mpi, nccl };
std::string_view to_string(TransportKind k);

// One point-to-point message. `peer` is a rank of ctx.world(); `tag` pairs a send with the
// receive that has the same (peer, tag), also when several messages join the same two ranks
// (a periodic axis with two ranks) or a rank sends to itself (one rank on a periodic axis).
// A receive expects exactly the bytes of its send (nccl has no partial receives). Messages
// with the same (peer, tag) pair up in the order they are listed. Tags lie in [0, 32767].
struct Message {
  void* data = nullptr;
  std::size_t bytes = 0;
  int peer = 0;
  int tag = 0;
};

// A group of transfers in flight. Finish it before its Transport goes; one dropped unfinished
// (an error path) is abandoned, not completed, since completing could wait on a failed rank.
class Exchange {
 public:
  virtual ~Exchange() = default;
  // Completes every transfer of the group. Afterwards received data is visible to work queued
  // on the stream given to start() (and to the host, for host memory).
  virtual void finish() = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual TransportKind kind() const = 0;
  virtual Memory memory() const = 0;
  // Starts the group. Send data must be complete in `stream` order: the transport orders its
  // reads of the sends, and its writes into the receive buffers, after work already queued on
  // `stream` (host memory: after the call). Returns at once where the transport allows.
  // Every rank must start its groups in the same order (nccl matches in issue order).
  virtual std::unique_ptr<Exchange> start(std::span<const Message> sends, std::span<const Message> recvs,
                                          stream_t stream) = 0;
};

struct TransportChoice {
  std::unique_ptr<Transport> transport;
  std::string reason;  // why this one, for `tessera info` and the run log
};

// Whether MPI can take device pointers: MPIX_Query_cuda_support where <mpi-ext.h> offers it
// (Open MPI; elsewhere false), overridable with TESSERA_CUDA_AWARE_MPI=0|1, agreed across ranks (MIN). `how` explains.
bool cuda_aware_mpi(Context& ctx, std::string* how = nullptr);
bool nccl_available();
std::string nccl_version();  // "" without NCCL

// requested: "auto" (nccl, then mpi, then staged; or what TESSERA_TRANSPORT names, which must
// then be available), "staged", "mpi" or "nccl". Backend::cpu
// always gets `host`, which is no value of [run] transport: its reason says "no transport". An unavailable explicit request throws InputError saying why.
// Collective over ctx.world().
TransportChoice make_transport(Context& ctx, Backend backend, std::string_view requested);

// Implementation helpers shared by the transport_*.cpp files; solvers use make_transport.
namespace detail {
// The concrete transports, one file each. Collective over ctx.world() (each duplicates it or
// builds a communicator from it). Without CUDA/NCCL compiled in, the device ones throw.
std::unique_ptr<Transport> make_host_transport(Context& ctx);
std::unique_ptr<Transport> make_staged_transport(Context& ctx);
std::unique_ptr<Transport> make_mpi_transport(Context& ctx);
std::unique_ptr<Transport> make_nccl_transport(Context& ctx);

// A copy that a rank makes for a message to itself.
struct SelfCopy {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
};
// Checks peers, tags and sizes, and pairs each receive from `rank` itself with the send to
// itself of the same tag (in listed order). Throws std::logic_error / std::length_error before
// anything is posted, so a bad group leaves nothing in flight.
std::vector<SelfCopy> plan_self_copies(int rank, int size, std::span<const Message> sends,
                                       std::span<const Message> recvs);

// MPI_Isend/MPI_Irecv of `bytes` bytes of any size (MPI counts are int: above 2 GiB a derived
// byte datatype carries the message).
void post_send(const void* data, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request* req);
void post_recv(void* data, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request* req);

// An exchange that finish()es by waiting (comm::wait_all) for MPI requests.
std::unique_ptr<Exchange> make_request_exchange(Context& ctx, std::vector<MPI_Request> requests);

// A private duplicate of a communicator (so transport tags never meet other traffic), freed
// on destruction unless MPI is already finalized.
class DupComm {
 public:
  explicit DupComm(MPI_Comm parent);
  ~DupComm();
  DupComm(const DupComm&) = delete;
  DupComm& operator=(const DupComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};
}  // namespace detail

}  // namespace tessera::comm
