#pragma once
// `tessera bench scan`: every variant in G elements/s and as a fraction of the bound set by the
// device copy bandwidth measured in the same run (one read + one write per element), lookback
// against CUB, the seed's three kernels with and without host copies at the seed's length, and
// the distributed scan of data resident on the GPUs with its exscan cost. See docs/scan.md.
#include "comm/context.hpp"
#include "solvers/bench.hpp"

namespace tessera::scan {
BenchReport bench_scan(comm::Context& ctx, const BenchOptions& options);
}  // namespace tessera::scan
