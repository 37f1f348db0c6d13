#pragma once
// How many host threads a rank may run, and how its host waits for the GPU. One rule for every
// solver and every OpenMP region (Context applies it with omp_set_num_threads at start-up):
//
//   OMP_NUM_THREADS when set; else the cores of the rank's affinity mask divided among the
//   node's ranks whose masks overlap it.
//
// So `--bind-to core` (Slurm's --cpu-bind=cores) gives each rank the cores it was bound to,
// `--bind-to none` gives each of P ranks 1/P of the node, and `--bind-to socket` splits a
// socket among the ranks bound to it. (Two ranks of 32 threads each on 32 cores, as
// `--bind-to none` left them before this rule, spin against each other: the BFS graph build
// took 65 s instead of 8.)
//
// A rank whose share is less than two cores has no core to spare for the helper threads that
// move its data (NCCL's proxy and network threads, MPI progress). Its host waits for the GPU
// by polling and yielding the core between polls (the CUDA driver's cudaDeviceScheduleYield),
// so those threads run whenever they have work. Measured on 2 H100s in the cross-node mode
// (NCCL over sockets, one core per rank; docs/performance.md): the driver's default spin never
// finished the BFS test in 100 s, nor did cudaDeviceScheduleBlockingSync (the waiting thread
// sleeps, yet NCCL's proxy still stalled behind it); yield finished in 3.8 s against 3.3 s with
// a core to spare. TESSERA_CUDA_SYNC overrides the choice.
#include <mpi.h>

#include <string>

namespace tessera::comm {

class Context;

enum class CudaSync { driver_default, spin, yield };
const char* to_string(CudaSync s);

struct HostThreads {
  int threads = 1;           // OpenMP threads of this rank
  int affinity_cores = 1;    // cores in this rank's affinity mask
  int sharing_ranks = 1;     // node-local ranks whose masks overlap this one's, this one included
  int node_cores = 1;        // cores in the union of the node's ranks' masks
  int node_threads = 1;      // the threads of all the node's ranks together
  bool from_environment = false;  // OMP_NUM_THREADS was set
  CudaSync cuda_sync = CudaSync::driver_default;
  std::string cuda_sync_reason;

  // "2 (4 cores of the rank's mask shared by 2 ranks)": for the run log and `tessera info`.
  std::string describe() const;
  // The cores one rank has for itself (its mask shared among the ranks overlapping it).
  double cores_per_rank() const { return static_cast<double>(affinity_cores) / sharing_ranks; }
};

// Collective over `node` (the ranks of one host). Reads the affinity mask, OMP_NUM_THREADS and
// TESSERA_CUDA_SYNC; throws InputError for a bad TESSERA_CUDA_SYNC (after the collective part).
HostThreads plan_host_threads(MPI_Comm node);

// The rank's OpenMP threads under the rule above (what Context planned at start-up).
int cpu_threads_per_rank(const Context& ctx);

// The threads an OpenMP parallel region of this rank starts now (one is run to count them): what
// the engines' regions without a num_threads clause get, for the run log and the tests.
int openmp_team_size();

}  // namespace tessera::comm
