#pragma once
#include "app/bench.hpp"

namespace tessera::app {
// Ring-shift and halo-exchange bandwidth through every transport available to this job.
BenchReport bench_comm(comm::Context& ctx, const BenchOptions& options);
}  // namespace tessera::app
