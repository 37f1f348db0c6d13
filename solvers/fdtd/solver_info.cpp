#include "solvers/fdtd/solver_info.hpp"

#include <algorithm>

#include "solvers/fdtd/bench.hpp"
#include "solvers/fdtd/fdtd_solver.hpp"
#include "solvers/fdtd/schema.hpp"
#include "solvers/fdtd/yee.hpp"

namespace tessera::fdtd {
namespace {

// Per cell a rank holds six float field components and a material index: on the host for the
// cpu backend, on the GPU for cuda (whose host keeps the material map it uploads).
std::optional<MemoryEstimate> memory(const deck::Deck& d, Backend backend) {
  double cells = 1;
  for (const std::int64_t c : d.get_int_array("fdtd.cells")) cells *= static_cast<double>(c);
  const bool cuda = backend == Backend::cuda;
  // Dispersive materials add J (12 bytes) per Drude pole and J and P (24) per Lorentz pole in
  // each cell of their box: counted here over the whole grid (an upper bound).
  double poles = 0;
  for (const deck::Config& e : d.get_table_array("fdtd.material")) {
    const auto count = [&](const char* key) { return e.has(key) ? double(e.get_double_array(key).size()) : 0.0; };
    poles = std::max(poles, 12 * count("drude_frequency") + 24 * count("lorentz_frequency"));
  }
  const double per_cell = 6 * sizeof(float) + sizeof(MaterialIndex) + poles;
  // A forced fused sweep keeps a second copy of the fields; auto uses it only where it fits.
  const double second_copy = cuda && d.get_string("fdtd.sweep") == "fused" ? 6 * sizeof(float) : 0;
  return MemoryEstimate{"fdtd.cells", [=](double ranks) {
                          const double local = cells / ranks;
                          return comm::MemoryNeed{local * (cuda ? sizeof(MaterialIndex) : per_cell),
                                                  cuda ? local * (per_cell + second_copy) : 0};
                        }};
}

}  // namespace

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
  info.memory = memory;
  return info;
}

}  // namespace tessera::fdtd
