#include "comm/context.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/backend.hpp"
#include "core/cuda_check.hpp"
#include "core/env.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace tessera::comm {
namespace {
// Failure notices travel on their own communicator with this tag, so they never match
// application traffic.
constexpr int kFailureTag = 7001;
constexpr int kAckTag = 7002;      // another rank saw the notice and stopped
constexpr int kReleaseTag = 7003;  // the failing rank: every rank stopped, exit
}  // namespace

void check_mpi(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(fmt::format("MPI error '{}' in {} at {}:{}", std::string(text, len), call, file, line));
}

Context::Context(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    TESSERA_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    owns_mpi_ = true;
  }
  // Errors come back as return codes (checked everywhere) instead of aborting inside MPI.
  TESSERA_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  TESSERA_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &world_));
  TESSERA_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &failure_comm_));
  TESSERA_MPI_CHECK(MPI_Comm_rank(world_, &rank_));
  TESSERA_MPI_CHECK(MPI_Comm_size(world_, &size_));
  TESSERA_MPI_CHECK(MPI_Comm_split_type(world_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_));
  TESSERA_MPI_CHECK(MPI_Comm_rank(node_, &local_rank_));
  TESSERA_MPI_CHECK(MPI_Comm_size(node_, &local_size_));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  hostname_ = host;
  log::set_rank(rank_, size_);
  post_failure_receive();
  try {
    split_peer_nodes();
  } catch (const InputError& e) {
    startup_error_ = e.what();
    startup_input_error_ = true;
  }
  try {
    plan_threads();
  } catch (const InputError& e) {
    startup_error_ = e.what();
    startup_input_error_ = true;
  }
  try {
    bind_device();
  } catch (const std::exception& e) {
    startup_error_ = fmt::format("cannot bind rank {} to a GPU: {}", rank_, e.what());
  }
  if (startup_error_.empty()) {
    try {
      startup_error_ = launcher_problem();
    } catch (const InputError& e) {
      startup_error_ = e.what();
      startup_input_error_ = true;
    }
  }
}

void Context::check_startup() const {
  if (startup_input_error_) throw InputError(startup_error_);
  if (!startup_error_.empty()) throw std::runtime_error(startup_error_);
}

Context::~Context() {
  if (failure_req_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&failure_req_);
    MPI_Request_free(&failure_req_);
  }
  for (MPI_Comm* c : {&failure_comm_, &peer_node_, &node_, &world_})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  if (owns_mpi_) MPI_Finalize();
}

void Context::split_peer_nodes() {
  // Collective whatever the value: a bad value on one rank must not leave the others waiting
  // in MPI_Comm_split (the error is reported by check_startup, on every rank).
  int k = 0;
  std::string error;
  try {
    if (const auto v = env::get_integer("TESSERA_RANKS_PER_NODE")) k = static_cast<int>(*v);
  } catch (const InputError& e) {
    error = e.what();
  }
  simulated_ranks_per_node_ = k;
  const int group = k > 0 ? local_rank_ / k : 0;
  TESSERA_MPI_CHECK(MPI_Comm_split(node_, group, local_rank_, &peer_node_));
  TESSERA_MPI_CHECK(MPI_Comm_size(peer_node_, &peer_node_size_));
  int peer_rank = 0;
  TESSERA_MPI_CHECK(MPI_Comm_rank(peer_node_, &peer_rank));
  const int leads = peer_rank == 0 ? 1 : 0;
  TESSERA_MPI_CHECK(MPI_Allreduce(&leads, &node_count_, 1, MPI_INT, MPI_SUM, world_));
  if (!error.empty()) throw InputError(error);
}

void Context::plan_threads() {
  host_threads_ = plan_host_threads(node_);
  // Every OpenMP region of the rank, with or without its own num_threads clause, follows the rule.
  omp_set_num_threads(host_threads_.threads);
  const HostThreads& h = host_threads_;
  if (local_rank_ == 0 && h.node_threads > h.node_cores)
    log::warn_all("the {} rank(s) on node {} run {} host threads on {} core(s): they will take turns on the cores{}",
                  local_size_, hostname_, h.node_threads, h.node_cores,
                  h.from_environment ? " (OMP_NUM_THREADS asks for more than the node has)"
                                     : " (more ranks than cores)");
}

void Context::bind_device() {
  visible_devices_ = visible_device_count();
  if (visible_devices_ == 0) return;
  // With --gpus-per-task=1 every rank sees one device (index 0); with --gpu-bind=none or a
  // plain mpirun each sees all, and the node-local rank picks one.
  device_ = local_rank_ % visible_devices_;
#if defined(TESSERA_HAVE_CUDA)
  TESSERA_CUDA_CHECK(cudaSetDevice(device_));
  // How the host waits for the GPU (comm/host_threads.hpp): set before the first allocation
  // creates the context, and again where it exists already (the flags are then overwritten).
  unsigned flags = cudaDeviceScheduleAuto;
  switch (host_threads_.cuda_sync) {
    case CudaSync::driver_default:
      break;
    case CudaSync::spin:
      flags = cudaDeviceScheduleSpin;
      break;
    case CudaSync::yield:
      flags = cudaDeviceScheduleYield;
      break;
  }
  if (flags != cudaDeviceScheduleAuto) TESSERA_CUDA_CHECK(cudaSetDeviceFlags(flags));
#endif
  if (local_size_ > visible_devices_ && local_rank_ == 0)
    log::warn_all("{} ranks on node {} share {} GPU(s): ranks will share devices", local_size_, hostname_,
                  visible_devices_);
}

std::string Context::launcher_problem() const {
  // A job launched with a different task count than MPI sees (e.g. plain `mpirun` of a
  // non-MPI build inside srun) runs P copies of a 1-rank job: catch that early.
  const char* tasks = std::getenv("SLURM_NTASKS");
  if (!tasks || *env::get_boolean("TESSERA_IGNORE_SLURM_NTASKS")) return {};
  char* end = nullptr;
  const long n = std::strtol(tasks, &end, 10);
  if (end == tasks || n <= 0) return {};
  // Inside an allocation, mpirun may legitimately start fewer ranks than tasks (a job step);
  // only the "MPI sees one rank but Slurm started many" pattern is certainly wrong.
  if (size_ == 1 && n > 1)
    return fmt::format(
        "Slurm started {} tasks but MPI_Comm_size is 1: each task runs alone. The MPI library and the "
        "launcher do not match (try `srun --mpi=pmix` or `mpirun` inside the allocation; set "
        "TESSERA_IGNORE_SLURM_NTASKS=1 to run independent copies on purpose)",
        n);
  if (size_ != n) log::warn("Slurm allocated {} tasks but MPI_Comm_size is {}", n, size_);
  return {};
}

void Context::post_failure_receive() {
  TESSERA_MPI_CHECK(MPI_Irecv(failure_buf_, sizeof failure_buf_, MPI_CHAR, MPI_ANY_SOURCE, kFailureTag,
                              failure_comm_, &failure_req_));
}

bool Context::poll_failure(RemoteFailure& out) {
  if (failure_req_ == MPI_REQUEST_NULL) return false;
  int done = 0;
  MPI_Status st;
  TESSERA_MPI_CHECK(MPI_Test(&failure_req_, &done, &st));
  if (!done) return false;
  int len = 0;
  MPI_Get_count(&st, MPI_CHAR, &len);
  // Message layout: one byte of exit code, then the text.
  out.rank = st.MPI_SOURCE;
  out.code = static_cast<ExitCode>(len > 0 ? failure_buf_[0] : 1);
  out.message.assign(failure_buf_ + (len > 0 ? 1 : 0), len > 1 ? len - 1 : 0);
  post_failure_receive();
  return true;
}

void Context::announce_failure(std::string_view message, ExitCode code) {
  std::string packet(1, static_cast<char>(code));
  packet.append(message.substr(0, sizeof failure_buf_ - 1));
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    MPI_Request req;
    // Small and eager: the send completes locally; never waited on, since the job ends next.
    if (MPI_Isend(packet.data(), static_cast<int>(packet.size()), MPI_CHAR, r, kFailureTag, failure_comm_, &req) ==
        MPI_SUCCESS)
      MPI_Request_free(&req);
  }
}

bool Context::await_acknowledgements(double seconds) {
  std::vector<MPI_Request> acks;
  std::vector<char> sink(static_cast<std::size_t>(size_), 0);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    acks.emplace_back();
    if (MPI_Irecv(&sink[static_cast<std::size_t>(r)], 1, MPI_CHAR, r, kAckTag, failure_comm_, &acks.back()) !=
        MPI_SUCCESS)
      return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int done = 0;
    if (MPI_Testall(static_cast<int>(acks.size()), acks.data(), &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    RemoteFailure other;
    if (poll_failure(other) || std::chrono::steady_clock::now() > deadline) return false;  // MPI_Abort follows
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void Context::release_acknowledged() {
  char go = 1;
  std::vector<MPI_Request> sends;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    sends.emplace_back();
    MPI_Isend(&go, 1, MPI_CHAR, r, kReleaseTag, failure_comm_, &sends.back());
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);  // each receiver waits for it
}

void Context::acknowledge_failure(int failed_rank) {
  char ack = 1, go = 0;
  MPI_Request req;
  MPI_Isend(&ack, 1, MPI_CHAR, failed_rank, kAckTag, failure_comm_, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  // Blocks: the failing rank either releases every rank or, past its deadline, aborts the job.
  MPI_Recv(&go, 1, MPI_CHAR, failed_rank, kReleaseTag, failure_comm_, MPI_STATUS_IGNORE);
}

void Context::exit_now(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

void Context::abort(ExitCode code) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, static_cast<int>(code));
  std::_Exit(static_cast<int>(code));
}

void Context::exit_without_finalize(int code) {
  MPI_Barrier(world_);  // every rank has printed what it had to say
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

}  // namespace tessera::comm
