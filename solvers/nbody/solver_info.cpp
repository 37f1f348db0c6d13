#include "solvers/nbody/solver_info.hpp"

#include "solvers/nbody/bench.hpp"
#include "solvers/nbody/nbody_solver.hpp"
#include "solvers/nbody/params.hpp"

namespace tessera::nbody {

SolverInfo solver_info() {
  SolverInfo info;
  info.name = "nbody";
  info.description = "all-pairs gravitational N-body: ring-pass of body blocks over the ranks, tiled GPU kernels";
  info.format_version = 1;
  info.schema = nbody_schema;
  info.create = [](RunContext& run) { return make_nbody_solver(run); };
  info.bench = run_nbody_bench;
  // Outputs and tuning: they change how the run is computed or written, not what it computes.
  info.restart_may_change = {"nbody.units", "nbody.cuda"};
  return info;
}

}  // namespace tessera::nbody
