// The TFSF box (tfsf.hpp) on the serial cpu reference: with nothing inside, the incident wave
// stays inside the box (the scattered-field region holds only rounding), for two propagation
// directions and both polarisation pairings; with a PEC sphere inside, the scattered power
// through a closed box of flux planes around it is positive, and without the sphere it is
// nothing by comparison.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>

#include "fdtd_test_util.hpp"
#include "solvers/fdtd/flux.hpp"

namespace tessera::fdtd {
namespace {

// n^3 cells of 1 mm, CPML (8 cells) on every face, a TFSF box on node planes [lo, hi]^3 with a
// modulated Gaussian (15 GHz: 20 cells per wavelength) of 1 V/m.
Model tfsf_model(std::int64_t n, std::int64_t lo, std::int64_t hi, int axis, int dir, int component) {
  Model m = test::box_model({n, n, n}, 0.99, 1e-3);
  for (auto& f : m.faces) f = {FaceKind::cpml, FaceKind::cpml};
  m.cpml.thickness = 8;
  TfsfSpec t;
  t.box = {{lo, lo, lo}, {hi, hi, hi}};
  t.axis = axis;
  t.dir = dir;
  t.component = component;
  t.waveform = test::modulated_gaussian(15e9, 3);
  t.amplitude = 1.0;
  m.tfsf.push_back(t);
  return m;
}

// Whether a node of E component c at cell x lies in the box [lo, hi] (tfsf.hpp's rule).
bool inside(int c, const Index3& x, std::int64_t lo, std::int64_t hi) {
  const auto off = staggering(c);
  for (int d = 0; d < 3; ++d) {
    const std::int64_t p2 = 2 * x[d] + (off[d] != 0 ? 1 : 0);
    if (p2 < 2 * lo || p2 > 2 * hi) return false;
  }
  return true;
}

}  // namespace

// 36^3 cells, box [12, 24]^3: every 5 steps over 420 (the pulse crosses the box and leaves),
// the largest |E| of any E node outside the box (and outside the CPML) against the largest
// inside. The 1D incident grid is the 3D grid's own plane wave, so the scattered region holds
// rounding only: measured about 1e-7 of the incident amplitude; the bound is the 1e-3.
// A wrong sign or coefficient in a correction, a half-cell shift of the incident H, or the
// incident field a step late leaks 1e-2 or more.
TEST(FdtdTfsf, EmptyBoxLeaksBelow1e3) {
  const std::int64_t n = 36, lo = 12, hi = 24;
  struct Case {
    int axis, dir, component;
  };
  for (const Case c : {Case{2, 1, kEx}, Case{0, -1, kEz}, Case{1, 1, kEx}}) {
    SCOPED_TRACE(fmt::format("axis {} dir {} component {}", c.axis, c.dir, kComponentName[c.component]));
    const Model m = tfsf_model(n, lo, hi, c.axis, c.dir, c.component);
    auto st = make_serial_stepper(m);
    std::vector<float> host(static_cast<std::size_t>(st->engine().layout().elements()));
    double in_max = 0, out_max = 0;
    for (int step = 0; step < 420; ++step) {
      st->step();
      if (step % 5) continue;
      for (int comp = 0; comp < 3; ++comp) {
        st->engine().download(comp, host);
        for (std::int64_t z = 8; z < n - 8; ++z)
          for (std::int64_t y = 8; y < n - 8; ++y)
            for (std::int64_t x = 8; x < n - 8; ++x) {
              const double v = std::abs(host[static_cast<std::size_t>(st->engine().layout().at(x, y, z))]);
              double& worst = inside(comp, {x, y, z}, lo, hi) ? in_max : out_max;
              worst = std::max(worst, v);
            }
      }
    }
    std::printf("tfsf axis %d dir %+d %s: max |E| inside %.4f V/m, outside %.2e V/m\n", c.axis, c.dir,
                kComponentName[c.component], in_max, out_max);
    EXPECT_GT(in_max, 0.9);  // the wave is there (the pulse peak: 1 V/m)
    EXPECT_LT(in_max, 1.1);
    EXPECT_LT(out_max, 1e-3 * in_max);
  }
}

// Total scattering cross-section of a PEC sphere of radius a at wave number k (Mie):
// (2 pi / k^2) sum (2n + 1)(|a_n|^2 + |b_n|^2), a_n = [x j_n]' / [x h_n]', b_n = j_n / h_n, x = k a.
double mie_pec(double k, double a) {
  const double x = k * a;
  double s = 0;
  for (unsigned n = 1; n <= 20; ++n) {
    const std::complex<double> h(std::sph_bessel(n, x), std::sph_neumann(n, x)),
        h1(std::sph_bessel(n - 1, x), std::sph_neumann(n - 1, x));
    const double dj = x * std::sph_bessel(n - 1, x) - n * std::sph_bessel(n, x);
    const std::complex<double> dh = x * h1 - double(n) * h;
    s += (2 * n + 1) * (std::norm(dj / dh) + std::norm(h.real() / h));
  }
  return 2 * kPi / (k * k) * s;
}

// 40^3 cells, box [12, 28]^3, a plane wave along +z (Ex); six flux planes on the node planes 10
// and 30 (in the scattered-field region, inside the CPML's 8 cells) form a closed box.
//  - Empty box: the outward flux is rounding (< 1e-4 of the sphere's below; measured 1e-14),
//    and a plane inside the box (z = 20, 12 x 12 mm) carries the incident |A W(f)|^2 / (2 eta0)
//    per area, W the transform of the waveform at E's times: within 2% (measured 0.04 .. 1.2%,
//    growing with frequency as the Yee grid's wave impedance departs from eta0, O((k d)^2)).
//  - A PEC sphere (radius 4 mm) at the centre: the scattered power is positive at every
//    frequency of 9-15 GHz (ka 0.75 .. 1.26), and the cross-section P / I_inc lies within
//    1 .. 2.5 of Mie's (measured 1.54 .. 1.96): the staircased sphere (each PEC cell zeroes the
//    E nodes on its low faces, so the three components' zeroed sets are the sphere shifted by
//    half a cell different ways) scatters like a larger one, about 4.5 mm at the Rayleigh end,
//    where sigma ~ a^6; with an 8-cell radius (72^3 cells, the same ka) the ratio is 1.26 .. 1.44:
//    first-order convergence. A wrong incident amplitude or a lost factor 2 leaves that band.
TEST(FdtdTfsf, PecSphereScattersPositivePower) {
  const std::int64_t n = 40, lo = 12, hi = 28, f0 = 10, f1 = 30;
  const int steps = 700;
  const Spectrum sp = test::band(9e9, 15e9, 7);
  const auto run = [&](bool sphere, std::vector<double>* incident) {
    Model m = tfsf_model(n, lo, hi, 2, 1, kEx);
    if (sphere) {
      Shape s;
      s.kind = ShapeKind::sphere;
      s.material = kPec;
      s.center = {20e-3, 20e-3, 20e-3};
      s.radius = 4e-3;
      m.shapes.push_back(s);
    }
    test::add_flux_box(m, f0, f1, sp);
    FluxSpec inside;
    inside.name = "inside";
    inside.axis = 2;
    inside.layer = 20;
    inside.region = {{14, 14, 20}, {26, 26, 21}};
    inside.spectrum = sp;
    if (incident) m.fluxes.push_back(inside);
    auto st = make_serial_stepper(m);
    for (int step = 0; step < steps; ++step) st->step();
    const std::vector<double> total = test::flux_box_total(m, *st);
    if (incident) *incident = flux_spectrum(nullptr, m, 6, st->spectra().fluxes()[6], st->engine(), nullptr);
    return std::pair{total, m};
  };
  std::vector<double> inside;
  const auto [without, m] = run(false, &inside);
  const auto with = run(true, nullptr).first;
  const double eta0 = std::sqrt(kMu0 / kEps0), area = 12e-3 * 12e-3;
  for (std::size_t i = 0; i < with.size(); ++i) {
    const double f = sp.frequencies[i];
    std::complex<double> w = 0;
    for (int step = 1; step <= steps; ++step) {
      const double t = step * m.dt;
      w += m.tfsf[0].amplitude * m.tfsf[0].waveform(t) * std::polar(m.dt, -2 * kPi * f * t);
    }
    const double intensity = std::norm(w) / (2 * eta0);
    const double ratio = with[i] / intensity / mie_pec(2 * kPi * f / kC0, 4e-3);
    std::printf("tfsf pec sphere %.0f GHz: scattered %.3e J/Hz (empty box %.1e), sigma / Mie %.3f, incident flux "
                "inside / analytic %.4f\n",
                f * 1e-9, with[i], without[i], ratio, inside[i] / (intensity * area));
    EXPECT_GT(with[i], 0) << f;
    EXPECT_LT(std::abs(without[i]), 1e-4 * with[i]) << f;
    EXPECT_NEAR(inside[i] / (intensity * area), 1.0, 0.02) << f;
    EXPECT_GT(ratio, 1.0) << f;
    EXPECT_LT(ratio, 2.5) << f;
  }
}

}  // namespace tessera::fdtd
