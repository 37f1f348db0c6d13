#pragma once
// `tessera bench TARGET`: benchmark tables as text (for the terminal and docs/performance.md)
// and JSON (for tools/ plots). A benchmark measures; it never asserts (tests do that).
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "solvers/bench.hpp"

namespace tessera::app {

using tessera::BenchOptions;
using tessera::BenchReport;
using tessera::BenchRow;

std::string bench_targets();  // "comm, nbody, ..." for --help
int run_bench(comm::Context& ctx, const BenchOptions& options);
// Text table and JSON of a report (rank 0 prints/writes).
std::string format_table(const BenchReport& report);
std::string to_json(const BenchReport& report, const BenchOptions& options, int ranks);

}  // namespace tessera::app
