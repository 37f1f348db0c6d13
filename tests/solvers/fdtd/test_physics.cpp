// Physics of the Yee scheme against analytic answers, on the serial reference (one process,
// cpu engine): cavity resonances, numerical phase velocity, CPML reflection, energy.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/solvers/fdtd/fdtd_test_util.hpp"

using namespace tessera::fdtd;
using namespace tessera::fdtd::test;

// A PEC box of 8 x 6 x 5 cells rings at the frequencies of the discrete dispersion relation
// with k_i = m_i pi / L_i (Yee cavity modes are exact sinusoids); an Ez probe sees the modes
// with m, n >= 1. The continuum formula is off by 0.8% or more here, the test allows 0.1%.
TEST(FdtdPhysics, CavityResonancesMatchDiscreteDispersion) {
  Model m = box_model({8, 6, 5}, 0.5);
  const double tau = 8 * m.dt;
  m.sources.push_back(soft_source(kEz, {2, 1, 1}, gaussian(tau, 5 * tau)));
  add_probe(m, "p", {{kEz, {5, 4, 3}}});
  auto s = make_serial_stepper(m);
  const std::int64_t steps = 1 << 15;
  auto series = probe_series(*s, steps)[0];
  series.erase(series.begin(), series.begin() + 200);  // after the source has ended

  struct Mode {
    double discrete, continuum;
    int m, n, p;
  };
  std::vector<Mode> modes;
  for (int i = 1; i <= 4; ++i)
    for (int j = 1; j <= 4; ++j)
      for (int k = 0; k <= 4; ++k) {
        const std::array<double, 3> kv{i * kPi / (8e-3), j * kPi / (6e-3), k * kPi / (5e-3)};
        modes.push_back({yee_frequency(kv, m), continuum_frequency(kv), i, j, k});
      }
  std::sort(modes.begin(), modes.end(), [](const Mode& a, const Mode& b) { return a.discrete < b.discrete; });
  const double f_lo = 0.8 * modes[0].discrete, f_hi = 1.02 * modes[4].discrete;
  const auto peaks = spectral_peaks(series, m.dt, f_lo, f_hi, 1e-3);
  ASSERT_GE(peaks.size(), 4u) << "too few resonances found";
  for (double f : peaks) {
    const Mode* best = &modes[0];
    for (const Mode& md : modes)
      if (std::abs(md.discrete - f) < std::abs(best->discrete - f)) best = &md;
    const double err = f / best->discrete - 1;
    std::printf("peak %.6e Hz: mode (%d,%d,%d) discrete %.6e (%+.4f%%), continuum %.6e (%+.3f%%)\n", f, best->m,
                best->n, best->p, best->discrete, 100 * err, best->continuum, 100 * (f / best->continuum - 1));
    EXPECT_LT(std::abs(err), 1e-3) << "peak at " << f << " Hz";
  }
  // The lowest peak is the lowest mode, and the continuum formula would fail the same check.
  EXPECT_LT(std::abs(peaks[0] / modes[0].discrete - 1), 1e-3);
  EXPECT_GT(std::abs(peaks[0] / modes[0].continuum - 1), 5e-3);
}

// A plane wave along x (a grid 1 cell wide, periodic in y and z, so a point source is a sheet)
// travels with the numerical phase velocity of the 1D Yee relation
//   sin(k dx / 2) / dx = sin(w dt / 2) / (c dt),
// measured from the phase of the spectra at two probes, at several frequencies.
TEST(FdtdPhysics, PlaneWavePhaseVelocityMatchesNumericalDispersion) {
  Model m = box_model({400, 1, 1}, 0.99);
  m.faces[1] = m.faces[2] = {FaceKind::periodic, FaceKind::periodic};
  m.faces[0] = {FaceKind::cpml, FaceKind::cpml};
  m.cpml.thickness = 10;
  const double dx = m.cell_size[0];
  const double f0 = kC0 / (16 * dx);  // 16 cells per wavelength
  Waveform w;
  w.kind = WaveformKind::modulated_gaussian;
  w.frequency = f0;
  w.width = 2 / f0;
  w.delay = 4 * w.width;
  m.sources.push_back(soft_source(kEz, {60, 0, 0}, w));
  const std::int64_t x1 = 100, x2 = 200;
  add_probe(m, "a", {{kEz, {x1, 0, 0}}});
  add_probe(m, "b", {{kEz, {x2, 0, 0}}});
  auto s = make_serial_stepper(m);
  const auto series = probe_series(*s, 900);
  const auto dft = [&](const std::vector<double>& x, double f) {
    std::complex<double> sum = 0;
    for (std::size_t n = 0; n < x.size(); ++n) sum += x[n] * std::polar(1.0, -2 * kPi * f * double(n + 1) * m.dt);
    return sum;
  };
  for (double f : {0.8 * f0, f0, 1.2 * f0}) {
    const double dphi = std::arg(dft(series[0], f) / dft(series[1], f));  // k (x2 - x1), mod 2 pi
    const double distance = double(x2 - x1) * dx;
    const double k_guess = 2 * kPi * f / kC0;
    const double turns = std::round((k_guess * distance - dphi) / (2 * kPi));
    const double k = (dphi + 2 * kPi * turns) / distance;
    const double v = 2 * kPi * f / k;
    const double k_yee = 2 / dx * std::asin(dx / (kC0 * m.dt) * std::sin(kPi * f * m.dt));
    const double v_yee = 2 * kPi * f / k_yee;
    std::printf("f = %.4e Hz: v/c = %.7f, Yee dispersion %.7f\n", f, v / kC0, v_yee / kC0);
    EXPECT_LT(std::abs(v / v_yee - 1), 2e-5) << "f = " << f;
    EXPECT_GT(std::abs(v_yee / kC0 - 1), 2e-4);  // the dispersion is resolved by the check
  }
}

namespace {

// Ez of a Ricker dipole (14 cells per wavelength at its peak frequency) at the centre of a
// free region of `free` cells per axis inside 10 CPML cells (or PEC walls), at `offsets` from
// the source.
std::vector<std::vector<double>> ricker_run(std::int64_t free, FaceKind faces, const std::vector<Index3>& offsets,
                                            std::int64_t steps) {
  const std::int64_t n = free + 20;
  Model m = box_model({n, n, n}, 0.99);
  for (auto& axis : m.faces) axis = {faces, faces};
  m.cpml.thickness = 10;
  Waveform w;
  w.kind = WaveformKind::ricker;
  w.frequency = kC0 / (14 * m.cell_size[0]);
  w.delay = 1.5 / w.frequency;
  const Index3 c{n / 2, n / 2, n / 2};
  m.sources.push_back(soft_source(kEz, c, w));
  for (std::size_t p = 0; p < offsets.size(); ++p)
    add_probe(m, "p" + std::to_string(p), {{kEz, {c[0] + offsets[p][0], c[1] + offsets[p][1], c[2] + offsets[p][2]}}});
  auto s = make_serial_stepper(m);
  return probe_series(*s, steps);
}

// Peak |a - b| over peak |b|, in dB, per probe.
std::vector<double> difference_db(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  std::vector<double> out;
  for (std::size_t p = 0; p < a.size(); ++p) {
    double diff = 0, peak = 0;
    for (std::size_t t = 0; t < a[p].size(); ++t) {
      diff = std::max(diff, std::abs(a[p][t] - b[p][t]));
      peak = std::max(peak, std::abs(b[p][t]));
    }
    out.push_back(peak > 0 ? 20 * std::log10(diff / peak) : 0.0);
  }
  return out;
}

}  // namespace

// CPML: the field near the PML of a small domain (20 free cells) against a domain (70 free
// cells) large enough that nothing returns from its boundary within the window: the
// difference is what the PML reflects. Probes 2-3 cells from the PML, one near an edge
// (oblique incidence). With PEC walls instead, the same measure shows the walls' echo.
TEST(FdtdPhysics, CpmlReflectionIsBelowMinus40dB) {
  const std::vector<Index3> offsets{{7, 0, 0}, {7, 7, 2}, {0, 0, 8}};
  const std::int64_t steps = 110;
  const auto large = ricker_run(70, FaceKind::cpml, offsets, steps);
  const auto pml = difference_db(ricker_run(20, FaceKind::cpml, offsets, steps), large);
  const auto pec = difference_db(ricker_run(20, FaceKind::pec, offsets, steps), large);
  for (std::size_t p = 0; p < offsets.size(); ++p) {
    std::printf("probe %zu: CPML reflection %.1f dB (PEC walls: %.1f dB)\n", p, pml[p], pec[p]);
    EXPECT_LT(pml[p], -40) << "probe " << p;
    EXPECT_GT(pec[p], -20) << "probe " << p << ": the window misses the wall echo";
  }
}

// A lossless closed cavity with a dielectric block: the discrete energy
//   1/2 sum eps E(n)^2 + 1/2 sum mu H(n-1/2) . H(n+1/2)
// is an invariant of the Yee scheme, so after the source it stays put to float rounding.
TEST(FdtdPhysics, LosslessCavityEnergyDoesNotDrift) {
  Model m = box_model({10, 8, 6}, 0.99);
  m.materials.push_back({"glass", 3.0, 0.0, false, {}});
  Shape block;
  block.kind = ShapeKind::box;
  block.material = 2;
  block.min = {2e-3, 1e-3, 0};
  block.max = {6e-3, 5e-3, 4e-3};
  m.shapes.push_back(block);
  Waveform w;
  w.kind = WaveformKind::modulated_gaussian;
  w.frequency = 3e10;
  w.width = 1 / w.frequency;
  w.delay = 4 * w.width;
  m.sources.push_back(soft_source(kEz, {3, 3, 2}, w));
  m.sources.push_back(soft_source(kEx, {7, 5, 4}, w));
  auto s = make_serial_stepper(m);
  const std::int64_t source_end = static_cast<std::int64_t>(8 * w.width / m.dt) + 1;
  for (std::int64_t n = 0; n < source_end; ++n) s->step();
  std::vector<double> energy;
  for (int k = 0; k < 100; ++k) {
    for (int n = 0; n < 40; ++n) s->step();
    const auto e = s->local_energy();
    energy.push_back(e.electric + e.magnetic);
  }
  const auto [lo, hi] = std::minmax_element(energy.begin(), energy.end());
  std::printf("energy %.9e J, relative spread %.3e over %zu samples\n", energy.front(), (*hi - *lo) / *hi,
              energy.size());
  EXPECT_GT(*lo, 0);
  EXPECT_LT((*hi - *lo) / *hi, 2e-6);
}

// With a conductor in the cavity the same energy falls at every sample.
TEST(FdtdPhysics, LossyCavityEnergyDecays) {
  Model m = box_model({10, 8, 6}, 0.99);
  m.materials.push_back({"lossy", 2.0, 5.0, false, {}});
  Shape ball;
  ball.kind = ShapeKind::sphere;
  ball.material = 2;
  ball.center = {5e-3, 4e-3, 3e-3};
  ball.radius = 2e-3;
  m.shapes.push_back(ball);
  Waveform w;
  w.kind = WaveformKind::ricker;
  w.frequency = 3e10;
  w.delay = 1.5 / w.frequency;
  m.sources.push_back(soft_source(kEy, {3, 3, 2}, w));
  auto s = make_serial_stepper(m);
  for (int n = 0; n < 100; ++n) s->step();
  double last = s->local_energy().electric + s->local_energy().magnetic;
  for (int k = 0; k < 20; ++k) {
    for (int n = 0; n < 20; ++n) s->step();
    const auto e = s->local_energy();
    EXPECT_LT(e.electric + e.magnetic, last) << "sample " << k;
    last = e.electric + e.magnetic;
  }
}
