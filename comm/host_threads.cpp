#include "comm/host_threads.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include "comm/context.hpp"
#include "core/env.hpp"
#include "core/error.hpp"

namespace tessera::comm {
namespace {

// The rank's affinity mask as bytes (one per CPU), so masks travel through MPI portably.
std::vector<unsigned char> affinity_bytes() {
  std::vector<unsigned char> bytes(CPU_SETSIZE, 0);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    // No mask to read (not Linux-like): count every online processor as ours.
    const int n = std::max(1, omp_get_num_procs());
    for (int c = 0; c < n && c < CPU_SETSIZE; ++c) bytes[c] = 1;
    return bytes;
  }
  for (int c = 0; c < CPU_SETSIZE; ++c) bytes[c] = CPU_ISSET(c, &set) ? 1 : 0;
  return bytes;
}

int count(const unsigned char* mask) {
  int n = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c) n += mask[c];
  return n;
}

bool overlap(const unsigned char* a, const unsigned char* b) {
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (a[c] && b[c]) return true;
  return false;
}

}  // namespace

const char* to_string(CudaSync s) {
  switch (s) {
    case CudaSync::driver_default:
      return "spin (the driver's default)";
    case CudaSync::spin:
      return "spin";
    case CudaSync::yield:
      return "yield";
  }
  return "unknown";
}

std::string HostThreads::describe() const {
  if (from_environment) return fmt::format("{} (OMP_NUM_THREADS)", threads);
  if (sharing_ranks == 1) return fmt::format("{} (the {} core(s) of the rank's affinity mask)", threads, affinity_cores);
  return fmt::format("{} (the {} core(s) of the rank's affinity mask, shared by {} ranks)", threads, affinity_cores,
                     sharing_ranks);
}

HostThreads plan_host_threads(MPI_Comm node) {
  HostThreads h;
  int me = 0, ranks = 1;
  TESSERA_MPI_CHECK(MPI_Comm_rank(node, &me));
  TESSERA_MPI_CHECK(MPI_Comm_size(node, &ranks));
  const std::vector<unsigned char> mine = affinity_bytes();
  std::vector<unsigned char> all(static_cast<std::size_t>(ranks) * CPU_SETSIZE);
  TESSERA_MPI_CHECK(MPI_Allgather(mine.data(), CPU_SETSIZE, MPI_UNSIGNED_CHAR, all.data(), CPU_SETSIZE,
                                  MPI_UNSIGNED_CHAR, node));
  h.affinity_cores = std::max(1, count(mine.data()));
  h.sharing_ranks = 0;
  std::vector<unsigned char> any(CPU_SETSIZE, 0);
  for (int r = 0; r < ranks; ++r) {
    const unsigned char* m = all.data() + static_cast<std::size_t>(r) * CPU_SETSIZE;
    if (overlap(m, mine.data())) ++h.sharing_ranks;
    for (int c = 0; c < CPU_SETSIZE; ++c) any[c] |= m[c];
  }
  h.sharing_ranks = std::max(1, h.sharing_ranks);
  h.node_cores = std::max(1, count(any.data()));

  // OpenMP reads OMP_NUM_THREADS itself; omp_get_max_threads() is its value (the first of a list).
  h.from_environment = std::getenv("OMP_NUM_THREADS") != nullptr;
  h.threads = h.from_environment ? std::max(1, omp_get_max_threads()) : std::max(1, h.affinity_cores / h.sharing_ranks);
  TESSERA_MPI_CHECK(MPI_Allreduce(&h.threads, &h.node_threads, 1, MPI_INT, MPI_SUM, node));

  // The environment is read after the collective part, so a bad value cannot strand a rank.
  std::optional<std::string> forced;
  std::string bad;
  try {
    forced = env::get_choice("TESSERA_CUDA_SYNC");
  } catch (const InputError& e) {
    bad = e.what();
  }
  if (!bad.empty()) throw InputError(bad);
  if (forced && *forced != "auto") {
    h.cuda_sync = *forced == "spin" ? CudaSync::spin : CudaSync::yield;
    h.cuda_sync_reason = "TESSERA_CUDA_SYNC";
  } else if (h.cores_per_rank() < 2.0) {
    h.cuda_sync = CudaSync::yield;
    h.cuda_sync_reason = fmt::format("{:.3g} core(s) per rank: the host yields the core to the transport's threads "
                                     "while it waits",
                                     h.cores_per_rank());
  } else {
    h.cuda_sync_reason = fmt::format("{:.3g} cores per rank", h.cores_per_rank());
  }
  return h;
}

int cpu_threads_per_rank(const Context& ctx) { return ctx.host_threads().threads; }

int openmp_team_size() {
  int team = 1;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  return team;
}

}  // namespace tessera::comm
