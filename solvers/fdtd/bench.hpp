#pragma once
// `tessera bench fdtd`: cell-updates per second of the full step and of the bulk kernels
// beside the seed's launch mappings, as a fraction of the 72-bytes-per-cell roofline at the
// copy bandwidth measured in the same run; the CPML overhead; weak scaling per transport.
#include "comm/context.hpp"
#include "solvers/bench.hpp"

namespace tessera::fdtd {
BenchReport bench(comm::Context& ctx, const BenchOptions& options);
}  // namespace tessera::fdtd
