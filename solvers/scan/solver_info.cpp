#include "solvers/scan/solver_info.hpp"

#include <cmath>

#include "solvers/scan/bench.hpp"
#include "solvers/scan/schema.hpp"
#include "solvers/scan/scan_solver.hpp"

namespace tessera::scan {
namespace {

// Per element a rank holds the input and the output (in the accumulation type): on the host
// for the cpu backend; the cuda backend keeps both on the GPU and the input on the host too.
// A file's length is checked against its dataset later; its type is taken as the smallest.
std::optional<MemoryEstimate> memory(const deck::Deck& d, Backend backend) {
  if (!d.has("scan.input.length")) return std::nullopt;
  const double length = static_cast<double>(d.get_int("scan.input.length"));
  const std::string& type = d.get_string("scan.type");
  const double in = type == "int64" || type == "float64" ? 8 : 4;
  const double out = d.get_string("scan.accumulate") == "int64" ? 8 : in;
  const bool cuda = backend == Backend::cuda;
  return MemoryEstimate{"scan.input.length", [=](double ranks) {
                          const double local = std::ceil(length / ranks);
                          return comm::MemoryNeed{local * (cuda ? in : in + out), cuda ? local * (in + out) : 0};
                        }};
}

}  // namespace

SolverInfo solver_info() {
  SolverInfo info;
  info.name = "scan";
  info.description = "distributed prefix sum: the seed's GPU scans, decoupled look-back, CUB and Thrust baselines";
  info.format_version = 1;
  info.schema = scan_schema;
  info.create = [](RunContext& run) { return make_scan_solver(run); };
  info.bench = bench_scan;
  // Outputs and tuning: they change how the run is computed or written, not what it computes.
  info.restart_may_change = {"scan.verify", "scan.verify_windows", "scan.variant", "scan.write_input"};
  info.memory = memory;
  return info;
}

}  // namespace tessera::scan
