// The TFSF box (tfsf.hpp) on the serial cpu reference: with nothing inside, the incident wave
// stays inside the box (the scattered-field region holds only rounding), for two propagation
// directions and both polarisation pairings; with a PEC sphere inside, the scattered power
// through a closed box of flux planes around it is positive, and without the sphere it is
// nothing by comparison.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
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
  t.waveform.kind = WaveformKind::modulated_gaussian;
  t.waveform.frequency = 15e9;
  t.waveform.width = 1 / 15e9;
  t.waveform.delay = 3 / 15e9;
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

// 40^3 cells, box [12, 28]^3 with a PEC sphere (radius 4 mm) at its centre; six flux planes on
// the node planes 10 and 30 (in the scattered-field region, outside the box, inside the CPML's
// 8 cells) form a closed box: the scattered power out of it is positive at every frequency of
// 9-15 GHz. The same run without the sphere must give less than 1e-4 of it (the box is then
// empty: nothing scatters).
TEST(FdtdTfsf, PecSphereScattersPositivePower) {
  const std::int64_t n = 40, lo = 12, hi = 28, f0 = 10, f1 = 30;
  const auto run = [&](bool sphere) {
    Model m = tfsf_model(n, lo, hi, 2, 1, kEx);
    if (sphere) {
      Shape s;
      s.kind = ShapeKind::sphere;
      s.material = kPec;
      s.center = {20e-3, 20e-3, 20e-3};
      s.radius = 4e-3;
      m.shapes.push_back(s);
    }
    Spectrum sp;
    for (int i = 0; i < 7; ++i) sp.frequencies.push_back(9e9 + 1e9 * i);
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        FluxSpec f;
        f.name = std::string("face") + char('x' + a) + (side ? "+" : "-");
        f.axis = a;
        f.layer = side ? f1 : f0;
        f.region = {{f0, f0, f0}, {f1, f1, f1}};
        f.region.lo[a] = f.layer;
        f.region.hi[a] = f.layer + 1;
        f.spectrum = sp;
        f.weight = side ? 1 : -1;
        m.fluxes.push_back(f);
      }
    auto st = make_serial_stepper(m);
    for (int step = 0; step < 700; ++step) st->step();
    std::vector<double> total(sp.frequencies.size(), 0.0);
    for (std::size_t p = 0; p < m.fluxes.size(); ++p) {
      const auto flux = flux_spectrum(nullptr, m, p, st->spectra().fluxes()[p], st->engine(), nullptr);
      for (std::size_t i = 0; i < total.size(); ++i) total[i] += flux[i];
    }
    return total;
  };
  const auto with = run(true), without = run(false);
  for (std::size_t i = 0; i < with.size(); ++i) {
    std::printf("tfsf pec sphere %.0f GHz: scattered power %.3e J/Hz, empty box %.3e J/Hz\n", 9.0 + double(i),
                with[i], without[i]);
    EXPECT_GT(with[i], 0) << i;
    EXPECT_LT(std::abs(without[i]), 1e-4 * with[i]) << i;
  }
}

}  // namespace tessera::fdtd
