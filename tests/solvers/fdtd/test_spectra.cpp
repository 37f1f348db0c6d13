// Spectral monitors against physics, on the serial cpu reference: a dielectric slab's
// transmission and reflection against the Airy formula (two runs: empty, then with the slab,
// as the normalisation workflow of docs/fdtd.md), DFT amplitudes of a monochromatic wave against
// the time domain and against the sheet's E = eta0 K / 2, and the power of a Hertzian dipole
// through a closed box of six flux planes.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>

#include "fdtd_test_util.hpp"
#include "solvers/fdtd/flux.hpp"

namespace tessera::fdtd {
namespace {

using test::band;
using test::box_model;
using cd = std::complex<double>;

// Numerical wave number along z of a 1D-like Yee wave of angular frequency w at speed v:
// sin(w dt / 2) / (v dt) = sin(k dz / 2) / dz.
double yee_k(double w, double v, const Model& m) {
  const double dz = m.cell_size[2];
  return 2 / dz * std::asin(dz / (v * m.dt) * std::sin(w * m.dt / 2));
}

}  // namespace

// A lossless dielectric slab (eps_r 4, 60 cells = 30 mm) at normal incidence: a current sheet
// launches a modulated Gaussian along z; flux planes before (reflection, the incident fields of
// the empty run subtracted) and after the slab (transmission). Run 1 without the slab gives the
// incident flux, run 2 with it; T = P_t / P_inc, R = -P_r / P_inc against
//   T = (1 - R1)^2 / ((1 - R1)^2 + 4 R1 sin^2(k L)),  R = 1 - T,  R1 = ((n - 1)/(n + 1))^2,
// with k the slab's wave number from the 1D Yee dispersion relation (the wave is uniform
// across the periodic sides). The cells resolve the shortest wavelength in the slab (7 GHz)
// with 43 cells, so the dispersion correction to k is below 0.1%; the Yee interface reflects
// as the continuum one to O((k dz)^2) (about 2e-3 here), the CPML returns < 1e-4 of the power,
// and the source spectrum stays above 4% of its peak power over 3-7 GHz. Measured: |T - T_airy|
// and |R - R_airy| <= 1.4e-3, |T + R - 1| <= 4e-5. The bound, 1% absolute on T, R and T + R - 1
// (the issue's), holds these with a margin that a wrong phase, area, sign or normalisation
// (or a forgotten incident-field subtraction: R then reads about 1 - R) exceeds by far.
TEST(FdtdSpectra, DielectricSlabTransmissionAndReflectionMatchAiry) {
  const double d = test::slab::kD;
  const std::int64_t slab_cells = 60;
  const double n_slab = 2.0;
  const Spectrum s = test::slab_band();
  const test::SlabRuns runs =
      test::slab_runs({"glass", n_slab * n_slab, 0, false, {}}, test::slab::kFront + slab_cells);
  const auto& [inc_r, inc_t] = runs.empty;
  const auto& [pr, pt] = runs.with;
  const Model m = test::slab_column();

  const double r1 = std::pow((n_slab - 1) / (n_slab + 1), 2);
  double worst_t = 0, worst_r = 0, worst_sum = 0;
  for (std::size_t i = 0; i < s.frequencies.size(); ++i) {
    const double f = s.frequencies[i], w = 2 * kPi * f;
    // The empty run's two planes see the same incident power (lossless vacuum, no reflection).
    EXPECT_NEAR(inc_t[i] / inc_r[i], 1.0, 2e-3) << f;
    ASSERT_GT(inc_r[i], 0) << f;
    const double k = yee_k(w, kC0 / n_slab, m), L = slab_cells * d;
    const double t_airy = (1 - r1) * (1 - r1) / ((1 - r1) * (1 - r1) + 4 * r1 * std::pow(std::sin(k * L), 2));
    const double t = pt[i] / inc_r[i], r = -pr[i] / inc_r[i];
    worst_t = std::max(worst_t, std::abs(t - t_airy));
    worst_r = std::max(worst_r, std::abs(r - (1 - t_airy)));
    worst_sum = std::max(worst_sum, std::abs(t + r - 1));
    EXPECT_NEAR(t, t_airy, 0.01) << f;
    EXPECT_NEAR(r, 1 - t_airy, 0.01) << f;
    EXPECT_NEAR(t + r, 1.0, 0.01) << f;
  }
  std::printf("slab: max |T - T_airy| %.2e, |R - R_airy| %.2e, |T + R - 1| %.2e over 3-7 GHz\n", worst_t, worst_r,
              worst_sum);
  // The band holds a full fringe (T from 1 down to its minimum 0.64): the test sees the phase.
  double tmin = 1;
  for (std::size_t i = 0; i < s.frequencies.size(); ++i) tmin = std::min(tmin, pt[i] / inc_r[i]);
  EXPECT_LT(tmin, 0.7);
}

// A continuous (ramped) plane wave at f0: the DFT of Ex and Hy at a node, taken between two
// steps a whole number of periods apart in the steady state, gives the amplitude of the time
// series there (its RMS times sqrt 2), and the transform over the whole run equals the
// transform of the probe samples exactly (the same terms in the same order). The amplitude is
// also the sheet's eta0 K / 2 (and eta0 H for H).
TEST(FdtdSpectra, MonochromaticDftEqualsTimeDomainAmplitude) {
  const double d = 1e-3;
  Model m = test::column_model(120, d);
  const double f0 = 4e9;  // 75 cells per wavelength
  PlaneWaveSpec w;
  w.layer = 30;
  w.component = kEx;
  w.waveform.kind = WaveformKind::continuous;
  w.waveform.frequency = f0;
  w.waveform.ramp = 5 / f0;
  w.amplitude = 0.37;
  m.plane_waves.push_back(w);
  const Index3 node{1, 2, 70};
  test::add_probe(m, "p", {{kEx, node}, {kHy, node}});
  DftSpec dft;
  dft.name = "plane";
  dft.components = {kEx, kHy};
  dft.region = {{0, 0, 70}, {4, 4, 71}};
  dft.spectrum.frequencies = {f0};
  m.dfts.push_back(dft);
  auto st = make_serial_stepper(m);

  const double period_steps = 1 / (f0 * m.dt);
  const std::int64_t n1 = 2000, periods = 40;
  const auto n2 = n1 + static_cast<std::int64_t>(std::llround(periods * period_steps));
  const auto cols1 = test::probe_series(*st, n1);
  const DftMonitor& mon = st->spectra().dfts()[0];
  const auto at = [&](int comp) {
    const auto acc = Spectra::download(mon.blocks[comp], 1, st->engine());
    const std::int64_t cells = mon.blocks[comp].global.cells();
    const std::int64_t c = (node[1] * 4) + node[0];  // one layer: cell (i, j) of the plane
    return cd(acc[c], acc[cells + c]);
  };
  const cd x1[2] = {at(0), at(1)};
  const auto cols2 = test::probe_series(*st, n2 - n1);
  const cd x2[2] = {at(0), at(1)};
  for (int comp = 0; comp < 2; ++comp) {
    // The whole-run transform of the probe samples (E at n dt, H at (n - 1/2) dt).
    cd sum = 0;
    const auto series = [&](std::int64_t n) { return n <= n1 ? cols1[comp][n - 1] : cols2[comp][n - n1 - 1]; };
    for (std::int64_t n = 1; n <= n2; ++n) {
      const double t = (double(n) - (comp == 1 ? 0.5 : 0.0)) * m.dt;
      sum += series(n) * std::polar(m.dt, -2 * kPi * f0 * t);
    }
    EXPECT_NEAR(std::abs(x2[comp] - sum) / std::abs(sum), 0.0, 1e-12) << comp;
    // Steady-state amplitude from the time series and from the DFT difference.
    double ms = 0;
    for (std::int64_t n = n1 + 1; n <= n2; ++n) ms += series(n) * series(n);
    const double a_td = std::sqrt(2 * ms / double(n2 - n1));
    const double a_dft = 2 * std::abs(x2[comp] - x1[comp]) / (double(n2 - n1) * m.dt);
    const double expected = comp == 0 ? kEta0 * w.amplitude / 2 : w.amplitude / 2;
    std::printf("%s: amplitude from the DFT %.6g, from the time series %.6g, sheet eta0 K / 2 -> %.6g\n",
                comp == 0 ? "Ex" : "Hy", a_dft, a_td, expected);
    EXPECT_NEAR(a_dft / a_td, 1.0, 2e-3) << comp;
    EXPECT_NEAR(a_dft / expected, 1.0, 1e-2) << comp;
  }
}

// A Hertzian dipole (Ez, Ricker) in vacuum inside CPML, six flux planes around it (weight -1
// on the low faces): the outgoing flux equals
//   P(f) = eta0 k^2 |I l(f)|^2 / (12 pi),
// with I l(f) the discrete transform of the source current at its own times (n + 1/2) dt.
// The frequencies have 40-75 cells per wavelength and the box's faces are 6 cells from the
// dipole. Measured: the ratio is 1.0008 at 4 GHz rising to 1.0025 at 7.5 GHz (the Yee grid's
// radiation resistance departs from the continuum as (k d)^2); the bound is the 2%,
// which a missing H average, a wrong face area or sign (a face counted inwards: -1/3 of the
// power) or a half-step phase error in the source spectrum would break. 44^3 cells, 1200
// steps: CI runs it in about two seconds, so no reduced version is needed.
TEST(FdtdSpectra, DipoleFluxThroughClosedBoxMatchesHertzianPower) {
  const std::int64_t n = 44, c = n / 2, h = 6;
  Model m = box_model({n, n, n}, 0.99, 1e-3);
  for (auto& axis : m.faces) axis = {FaceKind::cpml, FaceKind::cpml};
  m.cpml.thickness = 10;
  Waveform w;
  w.kind = WaveformKind::ricker;
  w.frequency = 6e9;
  w.delay = 1.5 / w.frequency;
  const double il = 1e-3;
  m.sources.push_back(test::soft_source(kEz, {c, c, c}, w, il));
  const Spectrum s = band(4e9, 7.5e9, 8, 1);
  test::add_flux_box(m, c - h, c + h, s);
  auto st = make_serial_stepper(m);
  const std::int64_t steps = 1200;
  for (std::int64_t k = 0; k < steps; ++k) st->step();
  const std::vector<double> total = test::flux_box_total(m, *st);
  double worst = 0;
  for (std::size_t i = 0; i < total.size(); ++i) {
    const double f = s.frequencies[i], k = 2 * kPi * f / kC0;
    cd spec = 0;
    for (std::int64_t n2 = 0; n2 < steps; ++n2) {
      const double t = (double(n2) + 0.5) * m.dt;
      spec += il * w(t) * std::polar(m.dt, -2 * kPi * f * t);
    }
    const double expected = kEta0 * k * k * std::norm(spec) / (12 * kPi);
    worst = std::max(worst, std::abs(total[i] / expected - 1));
    std::printf("dipole %.2f GHz: flux / Hertzian power = %.5f\n", f * 1e-9, total[i] / expected);
    EXPECT_NEAR(total[i] / expected, 1.0, 0.02) << f;
  }
  std::printf("dipole: worst relative error %.2e\n", worst);
}

}  // namespace tessera::fdtd
