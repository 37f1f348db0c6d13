#pragma once
// OpenMP threads for one rank's host work: OMP_NUM_THREADS when set, else the node's cores
// divided among the node's ranks. (Two ranks of 32 threads each on 32 cores, as `mpirun
// --bind-to none` leaves them, spin against each other: the BFS graph build took 65 s instead
// of 8.)
#include "comm/context.hpp"

namespace tessera::comm {
int cpu_threads_per_rank(const Context& ctx);
}  // namespace tessera::comm
