#include "solvers/nbody/solver_info.hpp"

#include "solvers/nbody/memory.hpp"

#include "solvers/nbody/bench.hpp"
#include "solvers/nbody/nbody_solver.hpp"
#include "solvers/nbody/params.hpp"

namespace tessera::nbody {
namespace {

// The body count of ic = "file" comes from the snapshot (checked when it is read).
std::optional<MemoryEstimate> memory(const deck::Deck& d, Backend backend) {
  if (!d.has("nbody.n") || d.get_string("nbody.ic") == "file") return std::nullopt;
  const double n = static_cast<double>(d.get_int("nbody.n"));
  const bool cuda = backend == Backend::cuda, dbl = d.get_string("nbody.precision") == "double";
  return MemoryEstimate{"nbody.n", [=](double ranks) {
                          return dbl ? bodies_memory<double>(n, ranks, cuda) : bodies_memory<float>(n, ranks, cuda);
                        }};
}

}  // namespace

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
  info.memory = memory;
  return info;
}

}  // namespace tessera::nbody
