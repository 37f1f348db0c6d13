#include "solvers/fdtd/solver_info.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "solvers/fdtd/bench.hpp"
#include "solvers/fdtd/dispersion.hpp"
#include "solvers/fdtd/fdtd_solver.hpp"
#include "solvers/fdtd/schema.hpp"
#include "solvers/fdtd/spectra.hpp"
#include "solvers/fdtd/yee.hpp"

namespace tessera::fdtd {
namespace {

// The cuda engine's sample buffers of a DFT block of `nodes` nodes, summed over the ranks
// however they split it: a rank's buffer holds dft_batch_steps() steps of 4-byte samples,
// at most kDftBatch, and a batch of whole steps fills at least half of kDftSampleBytes unless
// one step is more. A lower bound, so a refusal stays certain.
double dft_sample_bytes(double nodes) {
  const double step = 4 * nodes;
  return std::min(kDftBatch * step, std::max(kDftSampleBytes / 2.0, step));
}

// The running DFTs of [[fdtd.dft]] and [[fdtd.flux]] over all ranks (spectra.hpp): float64 re
// and im per node and frequency of each block, the cuda engine's sample batches, and for a flux
// plane with `subtract` the earlier run's accumulators, read onto the host (flux.cpp).
struct DftBytes {
  double accumulators = 0, samples = 0, subtracted = 0;
};

DftBytes dft_bytes(const Model& m) {
  DftBytes b;
  const auto add = [&](const std::vector<Box>& arrays, const Spectrum& s, bool subtract) {
    for (const Box& a : arrays) {
      const double nodes = static_cast<double>(a.cells());
      const double acc = 16 * static_cast<double>(s.frequencies.size()) * nodes;
      b.accumulators += acc;
      b.samples += dft_sample_bytes(nodes);
      if (subtract) b.subtracted += acc;
    }
  };
  for (const DftSpec& d : m.dfts) add(dft_arrays(d), d.spectrum, false);
  for (const FluxSpec& f : m.fluxes) add(flux_arrays(f), f.spectrum, !f.subtract.empty());
  return b;
}

// What a rank holds, each part shared evenly by the ranks (a lower bound of the largest
// rank's need: comm/memory.hpp). In the engine, on the host for the cpu backend and on the GPU
// for cuda (whose host keeps the material map it uploads):
//  - per cell of the grid: six float field components and a material index (a forced fused
//    sweep keeps a second copy of the fields; auto uses it only where it fits);
//  - the Drude/Lorentz J and P arrays over the dispersive box (dispersion.hpp);
//  - the running DFTs' accumulators, and on cuda their sample batches (dft_bytes).
// On the host for both: the `subtract` accumulators of flux planes.
std::optional<MemoryEstimate> memory(const deck::Deck& d, Backend backend) {
  double cells = 1;
  for (const std::int64_t c : d.get_int_array("fdtd.cells")) cells *= static_cast<double>(c);
  const bool cuda = backend == Backend::cuda;
  const double per_cell = 6 * sizeof(float) + sizeof(MaterialIndex);
  const std::string sweep = d.get_string("fdtd.sweep");
  const double second_copy = cuda && (sweep == "fused" || sweep == "blocked") ? 6 * sizeof(float) : 0;
  // The poles and the monitors need the resolved model. A deck it refuses is estimated by its
  // grid alone: the solver reports the mistake when it is created (on every rank together).
  double poles = 0;
  DftBytes dft;
  try {
    const Model m = params_from_deck(d);
    poles = static_cast<double>(dispersion_bytes_per_cell(m)) * static_cast<double>(dispersive_bounds(m).cells());
    dft = dft_bytes(m);
  } catch (const InputError&) {
  }
  const double engine = cells * (per_cell + second_copy) + poles + dft.accumulators + (cuda ? dft.samples : 0);
  const double host = dft.subtracted + (cuda ? cells * sizeof(MaterialIndex) : engine);
  return MemoryEstimate{"fdtd.cells", [=](double ranks) {
                          return comm::MemoryNeed{host / ranks, cuda ? engine / ranks : 0};
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
