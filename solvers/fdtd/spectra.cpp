#include "solvers/fdtd/spectra.hpp"

#include <cmath>
#include <stdexcept>

#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {

std::array<int, 4> flux_components(int axis) {
  const int p = (axis + 1) % 3, q = (axis + 2) % 3;
  return {p, q, kHx + p, kHx + q};
}

std::vector<Box> dft_arrays(const DftSpec& d) { return std::vector<Box>(d.components.size(), d.region); }

std::vector<Box> flux_arrays(const FluxSpec& f) {
  Box h = f.region;
  h.lo[f.axis] = f.layer - 1;
  return {f.region, f.region, h, h};
}

Spectra::Spectra(const Model& model, const LocalDomain& domain, Engine& engine) : dt_(model.dt), domain_(domain) {
  const Box mine = domain.global_box();
  for (const DftSpec& d : model.dfts) {
    const std::vector<Box> boxes(d.components.size(), intersect(d.region, mine));
    dfts_.push_back(make_monitor(d.spectrum, d.components, boxes, dft_arrays(d), engine));
  }
  for (const FluxSpec& f : model.fluxes) {
    const int a = f.axis;
    const auto comps = flux_components(a);
    const bool owns_layer = f.layer >= domain.offset[a] && f.layer < domain.offset[a] + domain.n[a];
    Box t = intersect(f.region, mine);  // transverse cells, [layer, layer + 1) along a
    if (!owns_layer) t = {};
    Box h = t;
    if (!t.empty()) h.lo[a] = f.layer - 1;  // H below the plane: maybe the low ghost layer
    const std::vector<Box> boxes{t, t, h, h};
    fluxes_.push_back(make_monitor(f.spectrum, {comps.begin(), comps.end()}, boxes, flux_arrays(f), engine));
  }
}

DftMonitor Spectra::make_monitor(const Spectrum& s, const std::vector<int>& components,
                                 const std::vector<Box>& global_boxes, const std::vector<Box>& arrays,
                                 Engine& engine) {
  DftMonitor m;
  m.spectrum = &s;
  for (std::size_t i = 0; i < components.size(); ++i) {
    DftBlock b;
    b.component = components[i];
    b.array = arrays[i];
    if (!global_boxes[i].empty()) {
      b.global = global_boxes[i];
      DftRegion r;
      r.component = b.component;
      r.box = shifted(b.global, {-domain_.offset[0], -domain_.offset[1], -domain_.offset[2]});
      r.nfreq = static_cast<int>(s.frequencies.size());
      b.engine_id = engine.add_dft(r);
    }
    m.blocks.push_back(b);
  }
  return m;
}

void Spectra::accumulate(std::int64_t step, Engine& engine) {
  const auto run = [&](const DftMonitor& m) {
    const Spectrum& s = *m.spectrum;
    if (step % s.every != 0) return;
    const std::size_t nf = s.frequencies.size();
    // Phasors exp(-i 2 pi f t) k dt at E's time and at H's, half a step earlier. Stamping H
    // with its own time is the correction for the Yee staggering in time: it equals the
    // transform of H taken at E's times multiplied by exp(+i 2 pi f dt / 2), so E and H
    // transforms describe the same instants and E x H* needs no further phase.
    const double weight = double(s.every) * dt_;
    std::vector<double> re[2], im[2];
    for (int kind = 0; kind < 2; ++kind) {
      const double t = (double(step) - (kind == 1 ? 0.5 : 0.0)) * dt_;
      re[kind].resize(nf);
      im[kind].resize(nf);
      for (std::size_t f = 0; f < nf; ++f) {
        const double phase = 2 * kPi * s.frequencies[f] * t;
        re[kind][f] = std::cos(phase) * weight;
        im[kind][f] = -std::sin(phase) * weight;
      }
    }
    for (const DftBlock& b : m.blocks) {
      if (b.engine_id < 0) continue;
      const int kind = b.component >= kHx ? 1 : 0;
      engine.accumulate_dft(b.engine_id, re[kind], im[kind]);
    }
  };
  for (const DftMonitor& m : dfts_) run(m);
  for (const DftMonitor& m : fluxes_) run(m);
}

std::vector<double> Spectra::download(const DftBlock& b, std::size_t nfreq, Engine& engine) {
  std::vector<double> acc(static_cast<std::size_t>(b.elements(nfreq)));
  if (b.engine_id >= 0) engine.download_dft(b.engine_id, acc);
  return acc;
}

void Spectra::upload(const DftBlock& b, std::size_t nfreq, Engine& engine, const std::vector<double>& acc) {
  if (static_cast<std::int64_t>(acc.size()) != b.elements(nfreq))
    throw std::logic_error("Spectra::upload: accumulator size differs from the block's");
  if (b.engine_id >= 0) engine.upload_dft(b.engine_id, acc);
}

}  // namespace tessera::fdtd
