#include "solvers/fdtd/solver_info.hpp"

#include "solvers/fdtd/bench.hpp"
#include "solvers/fdtd/fdtd_solver.hpp"
#include "solvers/fdtd/schema.hpp"

namespace tessera::fdtd {

SolverInfo solver_info() {
  SolverInfo info;
  info.name = "fdtd";
  info.description = "3D Yee FDTD electromagnetics with CPML, materials, dipole sources and probes";
  info.format_version = 1;
  info.schema = [] { return schema(); };
  info.create = [](RunContext& run) -> std::unique_ptr<Solver> { return std::make_unique<FdtdSolver>(run); };
  info.bench = [](comm::Context& ctx, const BenchOptions& o) { return bench(ctx, o); };
  // Outputs, and the process grid (checkpoints restart on any decomposition).
  info.restart_may_change = {"fdtd.volume", "fdtd.probes", "fdtd.ranks"};
  return info;
}

}  // namespace tessera::fdtd
