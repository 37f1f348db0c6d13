#pragma once
// Spectra: one rank's running DFTs, for the [[fdtd.dft]] monitors and the [[fdtd.flux]] planes.
//
// Transform. For a component x sampled after every `every`-th step n (k = every):
//     X(f) = sum_n x(t_n) exp(-i 2 pi f t_n) k dt,
// a Riemann sum of the continuous transform (units: the field's times s), with t_n the time the
// sample really has: t_n = n dt for E, (n - 1/2) dt for H (the leapfrog's half step). The
// phasors exp(-i 2 pi f t_n) k dt are computed on the host in float64 once per step and
// monitor kind (E or H), and every engine adds float64(x) * phasor to float64 accumulators
// (Engine::accumulate_dft): each node's sum depends on its own samples only, so P ranks give
// the bits of one rank, and a checkpoint holds the sums exactly.
//
// Distribution: a dft monitor's nodes are accumulated by the rank that owns them. A flux plane
// at E-node layer L along its normal a is accumulated by the ranks owning layer L: the two
// tangential E on layer L, the two tangential H on layers L - 1 and L (half a cell below and
// above the plane); layer L - 1 may be the rank's low ghost layer, which the halo exchange has
// filled with the current H when a step ends (the E update reads it), so no value crosses ranks.
#include <cstdint>
#include <vector>

#include "solvers/fdtd/backend.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// One component of one monitor on this rank.
struct DftBlock {
  int component = 0;
  Box global;          // the global nodes accumulated here (empty: none on this rank)
  Box array;           // the monitor's global array of this component (the file's extent)
  int engine_id = -1;  // Engine::add_dft id, -1 when empty
  std::int64_t elements(std::size_t nfreq) const { return 2 * std::int64_t(nfreq) * global.cells(); }
};

struct DftMonitor {
  const Spectrum* spectrum = nullptr;
  // dft: one per component, in the deck's order; flux: E_p, E_q, H_p, H_q ((p, q) = (a+1, a+2)
  // mod 3 for the normal a).
  std::vector<DftBlock> blocks;
};

class Spectra {
 public:
  Spectra(const Model& model, const LocalDomain& domain, Engine& engine);

  // After the step that reached `step`: E at step dt, H at (step - 1/2) dt in the engine.
  void accumulate(std::int64_t step, Engine& engine);

  const std::vector<DftMonitor>& dfts() const { return dfts_; }      // model.dfts order
  const std::vector<DftMonitor>& fluxes() const { return fluxes_; }  // model.fluxes order
  bool empty() const { return dfts_.empty() && fluxes_.empty(); }

  // A block's accumulators ((f * 2 + part) * cells + cell; empty when the block is).
  static std::vector<double> download(const DftBlock& b, std::size_t nfreq, Engine& engine);
  static void upload(const DftBlock& b, std::size_t nfreq, Engine& engine, const std::vector<double>& acc);

 private:
  DftMonitor make_monitor(const Spectrum& s, const std::vector<int>& components, const std::vector<Box>& global_boxes,
                          const std::vector<Box>& arrays, Engine& engine);

  double dt_;
  LocalDomain domain_;
  std::vector<DftMonitor> dfts_, fluxes_;
};

// The tangential E and H of a flux plane with normal `axis`: E_p, E_q, H_p, H_q.
std::array<int, 4> flux_components(int axis);

// The global array of each block of a monitor, in DftMonitor::blocks order: the extent the
// files hold, whose nodes the ranks accumulate between them, each node once. A dft monitor's
// blocks cover its region; a flux plane's E_p, E_q its plane, H_p, H_q the layers L - 1 and L.
std::vector<Box> dft_arrays(const DftSpec& d);
std::vector<Box> flux_arrays(const FluxSpec& f);

}  // namespace tessera::fdtd
