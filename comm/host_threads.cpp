#include "comm/host_threads.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

namespace tessera::comm {

int cpu_threads_per_rank(const Context& ctx) {
  if (std::getenv("OMP_NUM_THREADS")) return std::max(1, omp_get_max_threads());
  return std::max(1, omp_get_num_procs() / std::max(1, ctx.local_size()));
}

}  // namespace tessera::comm
