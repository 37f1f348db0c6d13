// Physics against analytic answers, through the real run loop: a circular two-body orbit
// returns to its start after one period; the leapfrog's energy error on a Plummer sphere
// stays bounded over 1000 steps and is far smaller than the Euler scheme's at the same dt.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "io/h5.hpp"
#include "tests/solvers/nbody/nbody_test_util.hpp"

using namespace tessera;
using namespace tessera::nbody;
using tessera::nbody::test::context;
namespace nt = tessera::nbody::test;

namespace {

// Two bodies of mass 1/2 at (+-1/2, 0, 0) on a circular orbit: G = M = a = 1, so the relative
// speed is sqrt(G M / a) = 1 and the period 2 pi.
template <class T>
void write_two_body_snapshot(const std::filesystem::path& file) {
  auto& ctx = context();
  const Range r = block_range(2, ctx.size(), ctx.rank());
  HostBodies<T> all;
  all.resize(2);
  all.pos_mass = {{T(-0.5), 0, 0, T(0.5)}, {T(0.5), 0, 0, T(0.5)}};
  all.vel = {{0, T(-0.5), 0, 0}, {0, T(0.5), 0, 0}};
  all.ids = {10, 11};
  HostBodies<T> mine;
  mine.pos_mass.assign(all.pos_mass.begin() + r.begin, all.pos_mass.begin() + r.end());
  mine.vel.assign(all.vel.begin() + r.begin, all.vel.begin() + r.end());
  mine.acc.assign(r.count, Vec4<T>{0, 0, 0, 0});
  mine.ids.assign(all.ids.begin() + r.begin, all.ids.begin() + r.end());
  write_snapshot(ctx, file, SnapshotInfo{}, mine, r, 2);
}

template <class T>
void kepler(const std::string& precision) {
  nt::TempDir dir;
  write_two_body_snapshot<T>(dir / "two_body.h5");
  const int steps = 1000;
  const double dt = 2 * std::numbers::pi / steps;
  const auto deck = nt::load_deck(
      dir / "kepler.toml",
      nt::deck_text(dir / "out", steps,
                      "[nbody]\nic = \"file\"\neps = 0.0\nprecision = \"" + precision + "\"\ndt = " +
                          fmt::format("{:.17g}", dt) + "\n[nbody.file]\npath = \"" + (dir / "two_body.h5").string() +
                          "\"\n"));
  nt::run_deck(deck);
  const auto start = nt::read_snap<T>(dir / "two_body.h5");
  const auto end = nt::read_snap<T>(dir / "out" / "snapshot_0000.h5");
  // Leapfrog's phase error after one period is 2 pi (w dt)^2 / 24 = 1.0e-5 rad here: the
  // bodies return to within 1e-4 of their start (positions and velocities, a = 1).
  for (std::size_t i = 0; i < start.bodies.size(); ++i) {
    EXPECT_NEAR(end.bodies.pos_mass[i].x, start.bodies.pos_mass[i].x, 1e-4);
    EXPECT_NEAR(end.bodies.pos_mass[i].y, start.bodies.pos_mass[i].y, 1e-4);
    EXPECT_NEAR(end.bodies.vel[i].x, start.bodies.vel[i].x, 1e-4);
    EXPECT_NEAR(end.bodies.vel[i].y, start.bodies.vel[i].y, 1e-4);
    EXPECT_EQ(end.bodies.ids[i], start.bodies.ids[i]);
  }
  EXPECT_NEAR(end.time, 2 * std::numbers::pi, 1e-9);
}

}  // namespace

TEST(NbodyPhysics, KeplerCircularOrbitReturnsAfterOnePeriodSingle) { kepler<float>("single"); }
TEST(NbodyPhysics, KeplerCircularOrbitReturnsAfterOnePeriodDouble) { kepler<double>("double"); }

TEST(NbodyPhysics, HalfAPeriodIsTheOppositePoint) {
  nt::TempDir dir;
  write_two_body_snapshot<double>(dir / "two_body.h5");
  const auto deck = nt::load_deck(
      dir / "half.toml",
      nt::deck_text(dir / "out", 500,
                      "[nbody]\nic = \"file\"\neps = 0.0\nprecision = \"double\"\ndt = " +
                          fmt::format("{:.17g}", 2 * std::numbers::pi / 1000) + "\n[nbody.file]\npath = \"" +
                          (dir / "two_body.h5").string() + "\"\n"));
  nt::run_deck(deck);
  const auto start = nt::read_snap<double>(dir / "two_body.h5");
  const auto end = nt::read_snap<double>(dir / "out" / "snapshot_0000.h5");
  for (std::size_t i = 0; i < start.bodies.size(); ++i) {
    EXPECT_NEAR(end.bodies.pos_mass[i].x, -start.bodies.pos_mass[i].x, 1e-4);
    EXPECT_NEAR(end.bodies.vel[i].y, -start.bodies.vel[i].y, 1e-4);
  }
}

namespace {

// The energy_error column of a run's diagnostics.h5 (every rank reads it).
std::vector<double> energy_errors(const std::filesystem::path& out_dir) {
  const io::File f = io::File::open(context(), out_dir / "diagnostics.h5");
  const io::TimeSeries s = io::TimeSeries::open(f.root(), "nbody");
  return s.read_column("energy_error");
}

std::vector<double> plummer_energy_run(const nt::TempDir& dir, const std::string& integrator) {
  const auto out = dir / integrator;
  const auto deck = nt::load_deck(
      dir / (integrator + ".toml"),
      nt::deck_text(out, 1000,
                      "[diagnostics]\nevery = 10\n[nbody]\nn = 64\nic = \"plummer\"\nseed = 5\neps = 0.1\ndt = 0.01\n"
                      "precision = \"double\"\nintegrator = \"" +
                          integrator + "\"\n"));
  nt::run_deck(deck);
  return energy_errors(out);
}

}  // namespace

TEST(NbodyPhysics, LeapfrogEnergyErrorIsBoundedAndFarBelowEulers) {
  nt::TempDir dir;
  const auto leap = plummer_energy_run(dir, "leapfrog");
  const auto euler = plummer_energy_run(dir, "euler");
  ASSERT_EQ(leap.size(), 101u);  // steps 0, 10, ..., 1000
  ASSERT_EQ(euler.size(), 101u);
  double leap_max = 0, early_max = 0, late_mean = 0;
  for (std::size_t k = 0; k < leap.size(); ++k) {
    leap_max = std::max(leap_max, std::abs(leap[k]));
    if (k <= 20) early_max = std::max(early_max, std::abs(leap[k]));
    if (k >= 81) late_mean += leap[k] / 20;
  }
  const double euler_final = std::abs(euler.back());
  std::printf("leapfrog max |dE/E0| %.3e (first 200 steps %.3e, mean of last 200 %.3e); euler final %.3e\n",
              leap_max, early_max, late_mean, euler_final);
  // Symplectic: the error oscillates, no secular drift (the late mean stays within the early
  // oscillation), and stays small.
  EXPECT_LT(leap_max, 2e-4);
  EXPECT_LT(std::abs(late_mean), 3 * early_max + 1e-6);
  // The first-order scheme drifts, by orders of magnitude more at the same dt.
  EXPECT_GT(euler_final, 30 * leap_max);
}
