#pragma once
// Helpers of the fdtd tests: models built in code, runs of the serial reference, spectra.
#include <cmath>
#include <complex>
#include <cstdint>
#include <algorithm>
#include <random>
#include <vector>

#include "solvers/fdtd/constants.hpp"
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
