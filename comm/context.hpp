#pragma once
// comm::Context: one per process. Owns MPI (init/finalize), knows the world and node-local
// ranks, binds this rank to GPU `local_rank % visible_devices` (so Slurm's --gpus-per-task=1,
// where each rank sees one device, and --gpu-bind=none, where each sees all, both work), and
// watches a private channel on which a failing rank tells the others (see comm/errors.hpp).
#include <mpi.h>

#include <string>

#include "comm/host_threads.hpp"
#include "core/error.hpp"

namespace tessera::comm {

struct RemoteFailure {
  int rank = -1;
  ExitCode code = ExitCode::runtime_error;
  std::string message;
};

class Context {
 public:
  // Initialises MPI (MPI_THREAD_FUNNELED) unless already initialised, in which case this
  // Context neither initialises nor finalises it.
  Context(int* argc, char*** argv);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  bool is_root() const { return rank_ == 0; }
  const std::string& hostname() const { return hostname_; }

  // tessera's private duplicate of MPI_COMM_WORLD (same rank numbering).
  MPI_Comm world() const { return world_; }
  // Ranks sharing this host (MPI_COMM_TYPE_SHARED): GPU binding, host memory and threads.
  MPI_Comm node() const { return node_; }

  // The ranks tessera lets map each other's GPU memory (CUDA IPC: comm::PeerWindow): this
  // host's, or with TESSERA_RANKS_PER_NODE=k (a test knob) groups of k consecutive ranks of
  // this host, each group standing for a node of its own. With k = 1 every rank is its own
  // node: peer memory is off and the code paths of a job spread over nodes run on one host
  // (docs/user-guide.md, "Cross-node paths on one host").
  MPI_Comm peer_node() const { return peer_node_; }
  int peer_node_size() const { return peer_node_size_; }
  // The number of (simulated) nodes of the job: hosts, or groups of TESSERA_RANKS_PER_NODE.
  int node_count() const { return node_count_; }
  // TESSERA_RANKS_PER_NODE, or 0 when unset.
  int simulated_ranks_per_node() const { return simulated_ranks_per_node_; }

  // The CUDA device this rank is bound to, or -1 (no CUDA build, no visible device).
  int device() const { return device_; }
  int visible_devices() const { return visible_devices_; }

  // The rank's host threads and how its host waits for the GPU (comm/host_threads.hpp),
  // planned and applied (omp_set_num_threads, the device's schedule flag) at start-up.
  const HostThreads& host_threads() const { return host_threads_; }

  // Throws what went wrong while setting up (GPU binding, launcher mismatch, a bad environment
  // variable: InputError), if anything.
  // Kept out of the constructor so the failure takes the collective error path (run_guarded
  // calls this first) instead of escaping main().
  void check_startup() const;

  // Non-blocking: true (and `out` filled) when another rank has announced a failure.
  bool poll_failure(RemoteFailure& out);
  // Tells every other rank that this one failed (best effort, non-blocking).
  void announce_failure(std::string_view message, ExitCode code);
  // A clean end after a failure outside an agreement point (comm/errors.hpp, run_guarded):
  // the failing rank, after announce_failure, waits up to `seconds` for every other rank to
  // acknowledge the notice; false when one did not in time or another rank announced a
  // failure too (then MPI_Abort is the only end that cannot hang).
  bool await_acknowledgements(double seconds);
  // The failing rank, once every rank acknowledged: lets them exit.
  void release_acknowledged();
  // Every other rank, on the notice: acknowledges it to `failed_rank`, then waits until that
  // rank releases it (or ends the job with MPI_Abort).
  void acknowledge_failure(int failed_rank);
  // Exits this process with `code` without MPI_Finalize (after the exchange above: tessera's
  // communicator may hold a collective the failing rank never joined, so no collective and no
  // finalize may follow).
  [[noreturn]] void exit_now(int code);
  // Ends the whole job with `code` (MPI_Abort); every rank's process exits.
  [[noreturn]] void abort(ExitCode code);
  // Collective: every rank exits with `code` after a barrier, without MPI_Finalize. For
  // failures that leave a library (HDF5) holding files it would otherwise close inside
  // MPI_Finalize, on a file system that just failed (where that close crashes or hangs).
  [[noreturn]] void exit_without_finalize(int code);

 private:
  void plan_threads();
  void bind_device();
  void split_peer_nodes();
  std::string launcher_problem() const;
  void post_failure_receive();

  std::string startup_error_;
  bool startup_input_error_ = false;  // the user's to fix (a bad environment variable): InputError
  bool owns_mpi_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  int device_ = -1, visible_devices_ = 0;
  std::string hostname_;
  HostThreads host_threads_;
  MPI_Comm world_ = MPI_COMM_NULL;
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Comm peer_node_ = MPI_COMM_NULL;
  int peer_node_size_ = 1, node_count_ = 1, simulated_ranks_per_node_ = 0;
  MPI_Comm failure_comm_ = MPI_COMM_NULL;  // carries failure notices only
  MPI_Request failure_req_ = MPI_REQUEST_NULL;
  char failure_buf_[4096] = {};
};

// Throws std::runtime_error with the MPI error string when `rc` is not MPI_SUCCESS.
void check_mpi(int rc, const char* call, const char* file, int line);
#define TESSERA_MPI_CHECK(call) ::tessera::comm::check_mpi((call), #call, __FILE__, __LINE__)

}  // namespace tessera::comm
