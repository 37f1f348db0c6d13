#pragma once
// `tessera bench spmv`: the cpu engine's variants on generated matrices.
#include "comm/context.hpp"
#include "solvers/bench.hpp"

namespace tessera::spmv {
BenchReport bench_spmv(comm::Context& ctx, const BenchOptions& options);
}  // namespace tessera::spmv
