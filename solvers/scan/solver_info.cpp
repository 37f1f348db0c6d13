#include "solvers/scan/solver_info.hpp"

#include "solvers/scan/bench.hpp"
#include "solvers/scan/schema.hpp"
#include "solvers/scan/solver.hpp"

namespace tessera::scan {

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
  return info;
}

}  // namespace tessera::scan
