#pragma once
// OpenMP threads for the cpu engine of one rank: OMP_NUM_THREADS when set, else the node's
// cores divided among the node's ranks (2 ranks on 2 cores: 1 thread each, not 2 spinning).
#include "comm/context.hpp"

namespace tessera::nbody {
int cpu_threads_per_rank(const comm::Context& ctx);
}  // namespace tessera::nbody
