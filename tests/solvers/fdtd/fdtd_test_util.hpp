#pragma once
// Helpers of the fdtd tests: models built in code, runs of the serial reference, spectra.
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/flux.hpp"
#include "solvers/fdtd/params.hpp"
#include "solvers/fdtd/stepper.hpp"

namespace tessera::fdtd::test {

// A vacuum grid with pec faces, cubic cells of `d`, time step `courant` of the limit.
inline Model box_model(Index3 cells, double courant = 0.99, double d = 1e-3) {
  Model m;
  m.cells = cells;
  m.cell_size = {d, d, d};
  m.dt = courant * courant_limit(m.cell_size);
  for (auto& axis : m.faces) axis = {FaceKind::pec, FaceKind::pec};
  m.materials = {{"vacuum", 1, 0, false, {}}, {"pec", 1, 0, true, {}}};
  return m;
}

// Gives material `i` a Drude pole (w_p dt = 0.3, gamma dt = 0.02) and, with `lorentz`, a
// Lorentz pole (w_0 dt = 0.5, delta_eps 1.5, gamma dt = 0.05): inside the stability bound of
// docs/fdtd.md for eps_inf >= 1 and courant <= 0.9.
inline void add_poles(Model& m, int i, bool lorentz) {
  auto& p = m.materials[static_cast<std::size_t>(i)].poles;
  const double dt = m.dt;
  p.push_back({std::pow(0.3 / dt, 2), 0.0, 0.02 / dt});
  if (lorentz) p.push_back({1.5 * std::pow(0.5 / dt, 2), 0.5 / dt, 0.05 / dt});
}

inline SourceSpec soft_source(int component, Index3 cell, Waveform w, double amplitude = 1e-3) {
  SourceSpec s;
  s.node = {component, cell};
  s.waveform = w;
  s.amplitude = amplitude;
  return s;
}

inline Waveform gaussian(double width, double delay) {
  Waveform w;
  w.kind = WaveformKind::gaussian;
  w.width = width;
  w.delay = delay;
  return w;
}

inline void add_probe(Model& m, const std::string& name, std::vector<Node> nodes) {
  m.probes.push_back({name, std::move(nodes)});
}

// Sizes of add_random_shapes' shapes, in cells: radius from `radius` to radius + radius_span,
// cylinders `length` long, boxes `box` wide. The defaults suit the GPU tests' grids.
struct ShapeSizes {
  double radius = 1, radius_span = 5, length = 6;
  std::array<double, 3> box{8, 5, 4};
};

// `count` shapes (sphere, box, cylinder in turn) of the materials 1 .. `materials` (pec first)
// at random places of the grid.
inline void add_random_shapes(Model& m, std::mt19937_64& rng, int count, int materials, const ShapeSizes& size = {}) {
  std::uniform_real_distribution<double> u(0, 1);
  const double d = m.cell_size[0];
  for (int i = 0; i < count; ++i) {
    Shape s;
    s.material = 1 + static_cast<int>(u(rng) * materials) % materials;
    s.kind = i % 3 == 0 ? ShapeKind::sphere : i % 3 == 1 ? ShapeKind::box : ShapeKind::cylinder;
    s.center = {u(rng) * m.cells[0] * d, u(rng) * m.cells[1] * d, u(rng) * m.cells[2] * d};
    s.radius = (size.radius + size.radius_span * u(rng)) * d;
    s.length = size.length * d;
    s.axis = i % 3;
    s.min = s.center;
    s.max = {s.center[0] + size.box[0] * d, s.center[1] + size.box[1] * d, s.center[2] + size.box[2] * d};
    m.shapes.push_back(s);
  }
}

// A carrier of frequency f under a Gaussian one period wide, peaking `periods` periods in.
inline Waveform modulated_gaussian(double f, double periods) {
  Waveform w;
  w.kind = WaveformKind::modulated_gaussian;
  w.frequency = f;
  w.width = 1 / f;
  w.delay = periods / f;
  return w;
}

// A 1D-like grid: 4 x 4 x nz cells of d, periodic across, CPML (10 cells) at both ends of z.
inline Model column_model(std::int64_t nz, double d) {
  Model m = box_model({4, 4, nz}, 0.99, d);
  m.faces[0] = {FaceKind::periodic, FaceKind::periodic};
  m.faces[1] = {FaceKind::periodic, FaceKind::periodic};
  m.faces[2] = {FaceKind::cpml, FaceKind::cpml};
  m.cpml.thickness = 10;
  return m;
}

// n frequencies evenly spaced over [f0, f1], accumulated every `every` steps.
inline Spectrum band(double f0, double f1, int n, int every = 1) {
  Spectrum s;
  s.every = every;
  for (int i = 0; i < n; ++i) s.frequencies.push_back(f0 + (f1 - f0) * i / (n - 1));
  return s;
}

// A flux plane over the whole cross-section at E-node layer `layer` along z.
inline FluxSpec z_plane(const std::string& name, const Model& m, std::int64_t layer, const Spectrum& s) {
  FluxSpec f;
  f.name = name;
  f.axis = 2;
  f.layer = layer;
  f.region = {{0, 0, layer}, {m.cells[0], m.cells[1], layer + 1}};
  f.spectrum = s;
  return f;
}

// Six flux planes on the node planes lo and hi of each axis, closing the box [lo, hi]^3, each
// counted outwards (weight -1 on the low faces).
inline void add_flux_box(Model& m, std::int64_t lo, std::int64_t hi, const Spectrum& s) {
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      FluxSpec f;
      f.name = std::string("face") + char('x' + a) + (side ? "+" : "-");
      f.axis = a;
      f.layer = side ? hi : lo;
      f.region = {{lo, lo, lo}, {hi, hi, hi}};
      f.region.lo[a] = f.layer;
      f.region.hi[a] = f.layer + 1;
      f.spectrum = s;
      f.weight = side ? 1 : -1;
      m.fluxes.push_back(f);
    }
}

// The flux out of the box of add_flux_box, whose six planes are the model's from `first` on.
inline std::vector<double> flux_box_total(const Model& m, Stepper& st, std::size_t first = 0) {
  std::vector<double> total(m.fluxes[first].spectrum.frequencies.size(), 0.0);
  for (std::size_t p = first; p < first + 6; ++p) {
    const auto flux = flux_spectrum(nullptr, m, p, st.spectra().fluxes()[p], st.engine(), nullptr);
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += flux[i];
  }
  return total;
}

// The DFT fields of flux plane i (to subtract in a later run).
inline FluxReference flux_reference(Stepper& st, std::size_t i) {
  FluxReference r;
  const DftMonitor& m = st.spectra().fluxes()[i];
  for (const DftBlock& b : m.blocks) r.blocks.push_back(Spectra::download(b, m.spectrum->frequencies.size(), st.engine()));
  return r;
}

// The slab column of the two-run flux workflow (docs/fdtd.md): column_model(130, 0.5 mm); a
// current sheet at z = 15 cells launches a modulated Gaussian (5 GHz, 3-7 GHz above 4% of its
// peak power) along +z; flux planes "refl" at z = 20 and "trans" at z = 110, 41 frequencies over
// 3-7 GHz sampled every 2 steps. A slab starts at z = 35.
namespace slab {
inline constexpr double kD = 0.5e-3;
inline constexpr std::int64_t kNz = 130, kSource = 15, kRefl = 20, kFront = 35, kTrans = 110;
}  // namespace slab

inline Spectrum slab_band() { return band(3e9, 7e9, 41, 2); }

inline Model slab_column() {
  Model m = column_model(slab::kNz, slab::kD);
  PlaneWaveSpec w;
  w.axis = 2;
  w.layer = slab::kSource;
  w.component = kEx;
  w.waveform = modulated_gaussian(5e9, 4);
  w.amplitude = 1.0;
  m.plane_waves.push_back(w);
  const Spectrum s = slab_band();
  m.fluxes.push_back(z_plane("refl", m, slab::kRefl, s));
  m.fluxes.push_back(z_plane("trans", m, slab::kTrans, s));
  return m;
}

// The flux spectra through the slab column's two planes.
struct SlabFluxes {
  std::vector<double> refl, trans;
};

// The two runs of 9000 steps: the empty column (its reflection plane's DFT fields kept), then
// the column with `material` filling the cells [kFront, back) along z, the empty run's fields
// subtracted on the reflection plane (leaving the reflected flux).
struct SlabRuns {
  SlabFluxes empty, with;
};

inline SlabRuns slab_runs(const MaterialSpec& material, std::int64_t back) {
  const auto run = [&](bool with_slab, const FluxReference* minus, FluxReference* keep) {
    Model m = slab_column();
    if (with_slab) {
      m.materials.push_back(material);
      Shape box;
      box.material = static_cast<int>(m.materials.size()) - 1;
      box.min = {0, 0, slab::kFront * slab::kD};
      box.max = {4 * slab::kD, 4 * slab::kD, back * slab::kD};
      m.shapes.push_back(box);
    }
    auto st = make_serial_stepper(m);
    for (int n = 0; n < 9000; ++n) st->step();
    SlabFluxes out;
    out.refl = flux_spectrum(nullptr, m, 0, st->spectra().fluxes()[0], st->engine(), minus);
    out.trans = flux_spectrum(nullptr, m, 1, st->spectra().fluxes()[1], st->engine(), nullptr);
    if (keep) *keep = flux_reference(*st, 0);
    return out;
  };
  FluxReference empty;
  SlabRuns r;
  r.empty = run(false, nullptr, &empty);
  r.with = run(true, &empty, nullptr);
  return r;
}

// The probe columns of a serial run of `steps` steps (every step sampled), column-major.
inline std::vector<std::vector<double>> probe_series(Stepper& s, std::int64_t steps) {
  std::vector<std::vector<double>> cols(static_cast<std::size_t>(s.total_columns()));
  std::vector<std::int64_t> at;
  for (std::int64_t n = 0; n < steps; ++n) {
    s.step();
    if (s.pending_rows() >= 4096 || n + 1 == steps) {
      const auto rows = s.drain_samples(at);
      const std::size_t w = s.sample_columns().size();
      for (std::size_t r = 0; r < at.size(); ++r)
        for (std::size_t c = 0; c < w; ++c) cols[static_cast<std::size_t>(s.sample_columns()[c])].push_back(rows[r * w + c]);
    }
  }
  return cols;
}

// x times a 4-term Blackman-Harris window (side lobes below -92 dB, so a strong mode hides
// no weak one).
inline std::vector<double> windowed(const std::vector<double>& x) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double u = 2 * kPi * double(i) / double(x.size() - 1);
    out[i] = x[i] * (0.35875 - 0.48829 * std::cos(u) + 0.14128 * std::cos(2 * u) - 0.01168 * std::cos(3 * u));
  }
  return out;
}

// |DTFT| of x (sampled every dt) at frequency f.
inline double spectrum(const std::vector<double>& x, double dt, double f) {
  const std::complex<double> step = std::polar(1.0, -2 * kPi * f * dt);
  std::complex<double> z = 1.0, sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum += x[i] * z;
    z *= step;
    if ((i & 1023) == 1023) z /= std::abs(z);  // keep the phasor on the unit circle
  }
  return std::abs(sum);
}

// Local maxima of the windowed spectrum in [f0, f1] above `floor` times the largest and not
// within the main lobe (4 bins) of a stronger one, each refined by a golden-section search.
inline std::vector<double> spectral_peaks(const std::vector<double>& signal, double dt, double f0, double f1,
                                          double floor) {
  const std::vector<double> x = windowed(signal);
  const double bin = 1.0 / (double(x.size()) * dt);
  const double df = bin / 4;
  std::vector<double> f, a;
  for (double v = f0; v <= f1; v += df) {
    f.push_back(v);
    a.push_back(spectrum(x, dt, v));
  }
  double top = 0;
  for (double v : a) top = std::max(top, v);
  std::vector<std::size_t> candidates;
  for (std::size_t i = 1; i + 1 < a.size(); ++i)
    if (a[i] > a[i - 1] && a[i] >= a[i + 1] && a[i] > floor * top) candidates.push_back(i);
  std::sort(candidates.begin(), candidates.end(), [&](std::size_t p, std::size_t q) { return a[p] > a[q]; });
  std::vector<std::size_t> kept;
  for (std::size_t i : candidates) {
    bool near = false;
    for (std::size_t k : kept) near = near || std::abs(f[i] - f[k]) < 4 * bin;
    if (!near) kept.push_back(i);
  }
  std::sort(kept.begin(), kept.end());
  std::vector<double> peaks;
  for (std::size_t i : kept) {
    double lo = f[i - 1], hi = f[i + 1];
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 40; ++it) {
      const double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
      if (spectrum(x, dt, m1) > spectrum(x, dt, m2)) hi = m2;
      else lo = m1;
    }
    peaks.push_back(0.5 * (lo + hi));
  }
  return peaks;
}

// Mode frequency of the Yee scheme for wave numbers k (1/m): the discrete dispersion relation
//   sin(w dt / 2) / (c dt) = sqrt(sum (sin(k_i d_i / 2) / d_i)^2).
inline double yee_frequency(const std::array<double, 3>& k, const Model& m) {
  double s = 0;
  for (int a = 0; a < 3; ++a) {
    const double t = std::sin(k[a] * m.cell_size[a] / 2) / m.cell_size[a];
    s += t * t;
  }
  return 2 / m.dt * std::asin(kC0 * m.dt * std::sqrt(s)) / (2 * kPi);
}

inline double continuum_frequency(const std::array<double, 3>& k) {
  return kC0 * std::sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]) / (2 * kPi);
}

}  // namespace tessera::fdtd::test
