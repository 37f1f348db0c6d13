// The pieces on one rank: the pair formula against hand-computed values, the OpenMP kernel
// against the long-double reference (blocks, accumulation, kick), the kernel-shape choice,
// the random streams and the statistics of the generated initial conditions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>

#include "solvers/nbody/forces.hpp"
#include "solvers/nbody/initial_conditions.hpp"
#include "solvers/nbody/params.hpp"
#include "solvers/nbody/split_efficiency.hpp"
#include "solvers/nbody/split_shapes.hpp"
#include "tests/solvers/nbody/nbody_test_util.hpp"

using namespace tessera;
using namespace tessera::nbody;
using tessera::nbody::test::context;
namespace nt = tessera::nbody::test;

namespace {

template <class T>
ForceArgs<T> self_args(const std::vector<Vec4<T>>& x, std::vector<Vec4<T>>& acc, double G, double eps,
                       bool potential) {
  ForceArgs<T> f = self_pass<T>(x.data(), static_cast<std::int64_t>(x.size()), acc.data(), softening2<T>(eps));
  f.potential = potential;
  f.G = T(G);
  return f;
}

}  // namespace

TEST(NbodyPair, TwoBodiesByHand) {
  // Body 1 (mass 2) at x = 1 pulls body 0 (mass 3) at the origin: a0 = G m1 / r^2 = 2 G
  // along +x, phi0 = -G m1 / r; and body 0 pulls body 1 back with 3 G.
  std::vector<Vec4<double>> x{{0, 0, 0, 3}, {1, 0, 0, 2}}, acc(2);
  forces_cpu<double>(self_args(x, acc, 0.5, 0.0, true), 1);
  EXPECT_NEAR(acc[0].x, 0.5 * 2, 1e-12);
  EXPECT_NEAR(acc[1].x, -0.5 * 3, 1e-12);
  EXPECT_EQ(acc[0].y, 0.0);
  EXPECT_NEAR(acc[0].w, -0.5 * 2, 1e-12);
  EXPECT_NEAR(acc[1].w, -0.5 * 3, 1e-12);
  // Softening: a = G m r / (r^2 + eps^2)^(3/2).
  forces_cpu<double>(self_args(x, acc, 1.0, 0.5, true), 1);
  EXPECT_NEAR(acc[0].x, 2.0 / std::pow(1.25, 1.5), 1e-12);
  EXPECT_NEAR(acc[0].w, -2.0 / std::sqrt(1.25), 1e-12);
}

TEST(NbodyPair, LoneBodyFeelsNothing) {
  // With eps = 0 the kernels still meet the body itself: its term must be exactly zero
  // (no NaN), and its potential excludes it.
  for (double eps : {0.0, 0.1}) {
    std::vector<Vec4<float>> x{{0.25f, -0.5f, 1.0f, 1.0f}}, acc(1, Vec4<float>{9, 9, 9, 9});
    forces_cpu<float>(self_args(x, acc, 1.0, eps, true), 1);
    EXPECT_EQ(acc[0].x, 0.0f);
    EXPECT_EQ(acc[0].y, 0.0f);
    EXPECT_EQ(acc[0].z, 0.0f);
    EXPECT_EQ(acc[0].w, 0.0f);
  }
}

template <class T>
void cpu_matches_reference(double tol_acc, double tol_phi) {
  for (std::int64_t n : {1, 2, 31, 257}) {
    const auto x = nt::random_bodies<T>(n, 100 + n);
    std::vector<Vec4<T>> acc(x.size(), Vec4<T>{T(7), T(7), T(7), T(7)});
    const ForceArgs<T> f = self_args(x, acc, 1.3, 0.05, true);
    forces_cpu<T>(f, 2);
    const auto ref = nt::reference_forces<T>(x, Range{0, n}, 1.3, f.eps2);
    const auto d = nt::deviation(acc, ref);
    EXPECT_LT(d.acc, tol_acc) << "n = " << n;
    EXPECT_LT(d.phi, tol_phi) << "n = " << n;
    if (n == 1) {
      EXPECT_EQ(acc[0].x, T(0));
    }
  }
}

TEST(NbodyCpuKernel, MatchesReferenceSingle) { cpu_matches_reference<float>(1e-5, 1e-5); }
TEST(NbodyCpuKernel, MatchesReferenceDouble) { cpu_matches_reference<double>(1e-12, 1e-12); }

TEST(NbodyCpuKernel, BlocksAccumulateAndKick) {
  // Sources in two blocks (the ring's pattern) give the one-block answer; the kick of the
  // last block adds acc * dt to the velocity; a pass without potential writes phi = 0.
  const std::int64_t n = 90;
  const auto x = nt::random_bodies<double>(n, 5);
  std::vector<Vec4<double>> whole(n), parts(n), vel(n, Vec4<double>{1, 2, 3, 0});
  forces_cpu<double>(self_args(x, whole, 1.0, 0.01, false), 2);
  ForceArgs<double> f = self_args(x, parts, 1.0, 0.01, false);
  f.n_sources = 40;
  forces_cpu<double>(f, 2);
  f.sources = x.data() + 40;
  f.n_sources = n - 40;
  f.source_offset = 40;
  f.accumulate = true;
  f.vel = vel.data();
  f.kick_dt = 0.5;
  forces_cpu<double>(f, 2);
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_NEAR(parts[i].x, whole[i].x, 1e-12 * (1 + std::abs(whole[i].x)));
    EXPECT_NEAR(parts[i].z, whole[i].z, 1e-12 * (1 + std::abs(whole[i].z)));
    EXPECT_EQ(parts[i].w, 0.0);
    EXPECT_DOUBLE_EQ(vel[i].x, 1 + 0.5 * parts[i].x);
    EXPECT_DOUBLE_EQ(vel[i].z, 3 + 0.5 * parts[i].z);
  }
}

TEST(NbodyKernelConfig, AutomaticShapesAreValidAndSensible) {
  for (int sm : {1, 80, 132}) {
    for (std::int64_t n : {1, 31, 4096, 65537, 262144, 1 << 20}) {
      for (bool dp : {false, true}) {
        const KernelConfig c = resolve_config({}, n, n, sm, dp);
        EXPECT_EQ(check_config(c, dp), "") << c.describe();
      }
    }
  }
  // H100 (132 SMs): small N splits each body's sources over groups; large N gives each
  // thread several bodies and needs no split.
  const KernelConfig small = resolve_config({}, 4096, 4096, 132, false);
  EXPECT_EQ(small.bodies_per_thread, 1);
  EXPECT_GT(small.split, 1);
  EXPECT_GE(4096 / (small.group * small.bodies_per_thread), 128);  // blocks cover the SMs
  const KernelConfig large = resolve_config({KernelVariant::tiled}, 1 << 20, 1 << 20, 132, false);
  EXPECT_EQ(large.bodies_per_thread, 4);
  EXPECT_EQ(large.split, 1);
  // Requests are kept; impossible ones refused.
  const KernelConfig asked = resolve_config({KernelVariant::tiled, 64, 4, 2}, 1000, 1000, 132, false);
  EXPECT_EQ(asked.group, 64);
  EXPECT_EQ(asked.split, 4);
  EXPECT_THROW(resolve_config({KernelVariant::tiled, 48, 1, 1}, 1000, 1000, 132, false), std::invalid_argument);
  EXPECT_THROW(resolve_config({KernelVariant::tiled, 256, 4, 4}, 1000, 1000, 132, false), std::invalid_argument);
  EXPECT_THROW(resolve_config({KernelVariant::tiled, 32, 3, 1}, 1000, 1000, 132, false), std::invalid_argument);
  EXPECT_THROW(resolve_config({KernelVariant::tiled, 64, 2, 4}, 1000, 1000, 132, false), std::invalid_argument);
  const KernelConfig seed = resolve_config({KernelVariant::seed_atomic}, 4096, 4096, 108, false);
  EXPECT_EQ(seed.group, 128);
  EXPECT_EQ(seed.split, 32);
  EXPECT_EQ(parse_kernel_variant("seed-naive"), KernelVariant::seed_naive);
  EXPECT_EQ(parse_kernel_variant("auto"), KernelVariant::automatic);
  EXPECT_THROW(parse_kernel_variant("fast"), InputError);
}

// The default rule (kernel auto): the tiled kernel's automatic shape below 16384 targets, the
// split kernel's measured winner (g256 b4 u8 m4) from there, in single precision; double
// precision stays tiled. The rule is on the targets of the launch alone.
TEST(NbodyKernelConfig, DefaultKernelBySize) {
  const SplitShape& winner = split_shapes().front();
  EXPECT_FALSE(winner.double_precision);
  EXPECT_EQ(winner.threads, 256);
  EXPECT_EQ(winner.bodies_per_thread, 4);
  EXPECT_EQ(winner.unroll, 8);
  EXPECT_EQ(winner.min_blocks, 4);
  EXPECT_EQ(kSplitFromTargets, 16384);
  EXPECT_EQ(KernelConfig{}.variant, KernelVariant::automatic);

  const auto chosen = [](std::int64_t n, bool dp = false, int sm = 132) { return resolve_config({}, n, n, sm, dp); };
  // H100 (132 SMs), the sizes measured on 2026-11-22 and the two sides of the switch.
  EXPECT_EQ(chosen(4096).describe(), "tiled g32 s16 b1");
  EXPECT_EQ(chosen(16383).variant, KernelVariant::tiled);
  EXPECT_EQ(chosen(16384).variant, KernelVariant::split);
  EXPECT_EQ(chosen(131072).describe(), "split g256 s33 b4 u8 m4");
  EXPECT_EQ(chosen(262144).describe(), "split g256 s18 b4 u8 m4");   // measured: 2067 G/s
  EXPECT_EQ(chosen(1 << 20).describe(), "split g256 s5 b4 u8 m4");   // measured: 2064 G/s
  for (std::int64_t n : {1, 31, 4096, 16383, 16384, 65537, 131072, 1 << 20}) {
    const KernelConfig c = chosen(n);
    EXPECT_EQ(c.variant, n >= kSplitFromTargets ? KernelVariant::split : KernelVariant::tiled) << n;
    EXPECT_EQ(c.describe(), resolve_config(default_kernel(n, false), n, n, 132, false).describe()) << n;
    EXPECT_EQ(chosen(n, false, 80).variant, c.variant) << n;  // the switch does not scale with SMs
    EXPECT_EQ(chosen(n, true).variant, KernelVariant::tiled) << n;
    EXPECT_EQ(check_config(chosen(n, true), true), "") << n;
  }
  // Only the targets decide: a rank's 16384 bodies against a small block of sources.
  EXPECT_EQ(resolve_config({}, 16384, 1000, 132, false).variant, KernelVariant::split);
  EXPECT_EQ(resolve_config({}, 16383, 1 << 20, 132, false).variant, KernelVariant::tiled);
  // auto takes no shape; an unresolved auto does not run.
  EXPECT_THROW(resolve_config({KernelVariant::automatic, 128}, 4096, 4096, 132, false), std::invalid_argument);
  EXPECT_THROW(resolve_config({KernelVariant::automatic, 0, 0, 0, 8}, 1 << 20, 1 << 20, 132, false),
               std::invalid_argument);
  EXPECT_NE(check_config(KernelConfig{}, false), "");
}

// The deck's [nbody.cuda] kernel: "auto" by default; the kernels by name; shape numbers without
// a kernel keep the meaning they had before "auto" (a tiled shape); bad tiled shapes refused.
TEST(NbodyParams, DeckKernelChoice) {
  nt::TempDir dir;
  const auto kernel_of = [&](const std::string& cuda) {
    const auto d = nt::load_deck(dir / "k.toml", nt::deck_text(dir / "out", 1, "[nbody]\nn = 10\n" + cuda));
    return params_from_deck(d).kernel;
  };
  EXPECT_EQ(kernel_of("").variant, KernelVariant::automatic);
  EXPECT_EQ(kernel_of("[nbody.cuda]\nkernel = \"auto\"\n").variant, KernelVariant::automatic);
  EXPECT_EQ(kernel_of("[nbody.cuda]\nkernel = \"tiled\"\n").variant, KernelVariant::tiled);
  EXPECT_EQ(kernel_of("[nbody.cuda]\nkernel = \"seed-atomic\"\n").variant, KernelVariant::seed_atomic);
  const KernelConfig split = kernel_of("[nbody.cuda]\nkernel = \"split\"\nbodies_per_thread = 8\n");
  EXPECT_EQ(split.variant, KernelVariant::split);
  EXPECT_EQ(split.bodies_per_thread, 8);
  const KernelConfig old = kernel_of("[nbody.cuda]\ngroup = 128\nbodies_per_thread = 2\n");
  EXPECT_EQ(old.variant, KernelVariant::tiled);
  EXPECT_EQ(old.group, 128);
  EXPECT_THROW(kernel_of("[nbody.cuda]\nbodies_per_thread = 8\n"), InputError);  // tiled: 1, 2 or 4
  EXPECT_THROW(kernel_of("[nbody.cuda]\nkernel = \"fast\"\n"), std::exception);  // the loader's collective error
}

// [nbody.units]: G in the resolved units is the deck's G (G_cgs M T^2 / L^3), whichever two
// keys are given; none: 1 kpc and 1e10 Msun (207.4 km/s); a third key that disagrees is refused
// with its name; G = 0 ties nothing but velocity = length / time.
TEST(NbodyParams, UnitsAreConsistentWithG) {
  nt::TempDir dir;
  const auto units_of = [&](const std::string& tables) {
    const auto d = nt::load_deck(dir / "u.toml", nt::deck_text(dir / "out", 1, "[nbody]\nn = 10\n" + tables));
    return params_from_deck(d).units;
  };
  const auto G_of = [](const UnitParams& u) {
    return kGravityCgs * u.mass_in_g * u.time_in_s * u.time_in_s / std::pow(u.length_in_cm, 3);
  };
  const UnitParams def = units_of("");
  EXPECT_DOUBLE_EQ(def.length_in_cm, 3.0856775814913673e21);
  EXPECT_DOUBLE_EQ(def.mass_in_g, 1.98841e43);
  EXPECT_NEAR(def.velocity_in_cm_per_s, 2.0739e7, 1e3);  // 207.39 km/s
  EXPECT_NEAR(def.time_in_s / 3.15576e13, 4.714, 1e-3);   // Myr
  EXPECT_NEAR(G_of(def), 1.0, 1e-12);
  EXPECT_NEAR(def.length_in_cm / def.time_in_s, def.velocity_in_cm_per_s, 1e-9 * def.velocity_in_cm_per_s);
  EXPECT_NEAR(G_of(UnitParams{}), 1.0, 1e-12);  // what snapshots written outside a run carry

  // Every pair of the four keys gives the same system; a single key takes the default length
  // (or, for the length, the default mass).
  const double L = 3.0856775814913673e18, V = 1e5;  // 1 pc, 1 km/s
  const UnitParams lv = units_of("[nbody.units]\nlength_in_cm = 3.0856775814913673e18\nvelocity_in_cm_per_s = 1e5\n");
  EXPECT_DOUBLE_EQ(lv.length_in_cm, L);
  EXPECT_DOUBLE_EQ(lv.velocity_in_cm_per_s, V);
  EXPECT_NEAR(lv.mass_in_g, L * V * V / kGravityCgs, 1e-12 * lv.mass_in_g);  // 232.5 Msun
  EXPECT_NEAR(G_of(lv), 1.0, 1e-12);
  const auto text = [](double x) { return fmt::format("{:.17g}", x); };
  const std::string keys[4] = {"length_in_cm", "mass_in_g", "velocity_in_cm_per_s", "time_in_s"};
  const double values[4] = {lv.length_in_cm, lv.mass_in_g, lv.velocity_in_cm_per_s, lv.time_in_s};
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) {
      const UnitParams u = units_of("[nbody.units]\n" + keys[a] + " = " + text(values[a]) + "\n" + keys[b] + " = " +
                                    text(values[b]) + "\n");
      SCOPED_TRACE(keys[a] + ", " + keys[b]);
      EXPECT_NEAR(u.length_in_cm, L, 1e-12 * L);
      EXPECT_NEAR(u.mass_in_g, lv.mass_in_g, 1e-12 * lv.mass_in_g);
      EXPECT_NEAR(u.velocity_in_cm_per_s, V, 1e-12 * V);
      EXPECT_NEAR(u.time_in_s, lv.time_in_s, 1e-12 * lv.time_in_s);
    }
  const UnitParams only_v = units_of("[nbody.units]\nvelocity_in_cm_per_s = 1e5\n");
  EXPECT_DOUBLE_EQ(only_v.length_in_cm, def.length_in_cm);
  EXPECT_NEAR(G_of(only_v), 1.0, 1e-12);
  const UnitParams only_l = units_of("[nbody.units]\nlength_in_cm = 3.0856775814913673e18\n");
  EXPECT_DOUBLE_EQ(only_l.mass_in_g, def.mass_in_g);
  EXPECT_NEAR(G_of(only_l), 1.0, 1e-12);

  // Another G: kpc, km/s and G = 4.30092e-6 kpc (km/s)^2 / Msun make the mass unit 1 Msun.
  const UnitParams astro =
      units_of("G = 4.30092e-6\n[nbody.units]\nlength_in_cm = 3.0856775814913673e21\nvelocity_in_cm_per_s = 1e5\n");
  EXPECT_NEAR(astro.mass_in_g / kSolarMassInG, 1.0, 1e-5);
  EXPECT_NEAR(G_of(astro), 4.30092e-6, 1e-17);

  // Three keys: accepted when they agree within 1e-3 (207.4 km/s for 207.387), else refused
  // naming the third key.
  EXPECT_NO_THROW(units_of("[nbody.units]\nlength_in_cm = 3.0857e21\nmass_in_g = 1.98841e43\n"
                           "velocity_in_cm_per_s = 2.074e7\n"));
  try {
    units_of("[nbody.units]\nlength_in_cm = 1.0\nmass_in_g = 1.0\nvelocity_in_cm_per_s = 1.0\n");
    ADD_FAILURE() << "cm, g and cm/s with G = 1 were accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("u.toml:"), std::string::npos) << m;
    EXPECT_NE(m.find("nbody.units.velocity_in_cm_per_s = 1 contradicts"), std::string::npos) << m;
    EXPECT_NE(m.find("make it 0.000258"), std::string::npos) << m;  // sqrt(6.6743e-8)
  }
  EXPECT_THROW(units_of("[nbody.units]\nvelocity_in_cm_per_s = 1e5\ntime_in_s = 1e10\nmass_in_g = 1e33\n"),
               InputError);

  // G = 0: no tie between the mass and the rest; velocity = length / time still holds.
  const UnitParams free = units_of("G = 0.0\n[nbody.units]\nlength_in_cm = 1e20\nmass_in_g = 1.0\ntime_in_s = 1e15\n");
  EXPECT_DOUBLE_EQ(free.mass_in_g, 1.0);
  EXPECT_DOUBLE_EQ(free.velocity_in_cm_per_s, 1e5);
  EXPECT_THROW(units_of("G = 0.0\n[nbody.units]\nlength_in_cm = 1e20\nvelocity_in_cm_per_s = 1e5\ntime_in_s = 1e14\n"),
               InputError);
}

// The split kernel: every compiled shape is accepted, a request picks the first compiled shape
// that agrees with it, and the split keeps the SMs evenly loaded within the workspace limit.
TEST(NbodyKernelConfig, SplitShapesAndSplitChoice) {
  for (const SplitShape& s : split_shapes()) {
    const KernelConfig c{KernelVariant::split, s.threads, 1, s.bodies_per_thread, s.unroll, s.min_blocks};
    EXPECT_EQ(check_config(c, s.double_precision), "") << c.describe();
    EXPECT_EQ(split_tile(s.threads) % s.unroll, 0) << c.describe();
    EXPECT_LE(s.threads * s.min_blocks, 2048) << c.describe();  // the SM's thread limit
  }
  const SplitShape& first = split_shapes().front();
  const KernelConfig def = resolve_config({KernelVariant::split}, 1 << 18, 1 << 18, 132, false);
  EXPECT_EQ(def.bodies_per_thread, first.bodies_per_thread);
  EXPECT_EQ(def.group, first.threads);
  EXPECT_EQ(def.unroll, first.unroll);
  const KernelConfig b1 = resolve_config({KernelVariant::split, 0, 0, 1}, 1 << 18, 1 << 18, 132, false);
  EXPECT_EQ(b1.bodies_per_thread, 1);
  const KernelConfig dp = resolve_config({KernelVariant::split}, 4096, 4096, 132, true);
  EXPECT_EQ(check_config(dp, true), "");
  EXPECT_THROW(resolve_config({KernelVariant::split, 96, 0, 1}, 4096, 4096, 132, false), std::invalid_argument);
  EXPECT_THROW(resolve_config({KernelVariant::split, 0, 0, 5}, 4096, 4096, 132, false), std::invalid_argument);
  EXPECT_NE(check_config({KernelVariant::tiled, 128, 1, 2, 16, 0}, false), "");  // unroll: split only
  EXPECT_NE(check_config({KernelVariant::split, 128, 0, 2, 16, 16}, false), "");  // split 0
  EXPECT_NE(check_config({KernelVariant::split, 128, kMaxSplit + 1, 2, 16, 16}, false), "");

  for (const SplitShape& s : split_shapes()) {
    if (s.double_precision) continue;
    for (std::int64_t n : {1, 31, 4096, 65537, 262144, 1 << 20}) {
      const KernelConfig c = resolve_config({KernelVariant::split, s.threads, 0, s.bodies_per_thread, s.unroll,
                                             s.min_blocks}, n, n, 132, false);
      EXPECT_GE(c.split, 1);
      EXPECT_LE(partials_needed(c, n), std::max<std::int64_t>(kMaxPartials, n)) << c.describe();
      EXPECT_EQ(partials_needed(c, n), c.split > 1 ? c.split * n : 0);
      // Every block gets at least one whole tile of sources.
      if (c.split > 1) {
        EXPECT_GE(n / c.split, split_tile(s.threads)) << c.describe() << " n = " << n;
      }
      // Large N: the busiest SM is within 3% of the mean (a 0.97-wave grid would not be).
      const std::int64_t groups = (n + s.threads * s.bodies_per_thread - 1) / (s.threads * s.bodies_per_thread);
      if (n >= 262144) {
        EXPECT_GE(split_efficiency(groups * c.split, 132, s.min_blocks), 0.97) << c.describe();
      }
    }
  }
  // The model: a whole number of full rounds is 1; one block too many on an SM costs a round.
  EXPECT_DOUBLE_EQ(split_efficiency(132 * 16 * 3, 132, 16), 1.0);
  EXPECT_NEAR(split_efficiency(2048, 132, 16), 2048.0 / 132 / 16, 1e-12);
  EXPECT_LT(split_efficiency(132 * 16 + 1, 132, 16), 0.7);
  EXPECT_EQ(choose_split(1, 1, 132, 128, 1, 16), 1);
  EXPECT_EQ(choose_split(4096, 4096, 132, 128, 1, 16), 4096 / 256);  // small N: as many as the sources allow
}

TEST(NbodyKernelConfig, ShapesReadBackFromTheirDescription) {
  for (const KernelConfig& c :
       {resolve_config({}, 4096, 4096, 132, false), resolve_config({KernelVariant::split}, 1 << 20, 1 << 20, 132, false),
        resolve_config({KernelVariant::seed_atomic}, 4096, 4096, 132, false)}) {
    if (c.variant == KernelVariant::seed_atomic) continue;  // the seeds' words are their own
    const KernelConfig back = parse_kernel_config(c.describe());
    EXPECT_EQ(back.describe(), c.describe());
  }
  const KernelConfig c = parse_kernel_config("split:b2:u16:m16");
  EXPECT_EQ(c.variant, KernelVariant::split);
  EXPECT_EQ(c.bodies_per_thread, 2);
  EXPECT_EQ(c.unroll, 16);
  EXPECT_EQ(c.min_blocks, 16);
  EXPECT_EQ(c.group, 0);
  EXPECT_EQ(parse_kernel_config("tiled g256 s1 b4").group, 256);
  EXPECT_EQ(parse_kernel_config("seed-atomic").variant, KernelVariant::seed_atomic);
  EXPECT_EQ(parse_kernel_config("auto").describe(), "auto");
  EXPECT_THROW(parse_kernel_config("split:x3"), InputError);
  EXPECT_THROW(parse_kernel_config("split:b"), InputError);
  EXPECT_THROW(parse_kernel_config("fast:b2"), InputError);
  EXPECT_THROW(parse_kernel_config(""), InputError);
}

TEST(NbodyRandom, StreamsAreKeyedBySeedAndIndex) {
  std::set<std::uint64_t> first;
  for (std::uint64_t i = 0; i < 1000; ++i) first.insert(BodyRandom(42, i).next());
  EXPECT_EQ(first.size(), 1000u);
  EXPECT_EQ(BodyRandom(42, 7).next(), BodyRandom(42, 7).next());
  EXPECT_NE(BodyRandom(42, 7).next(), BodyRandom(43, 7).next());
  BodyRandom r(1, 2);
  double lo = 1, hi = 0, sum = 0;
  for (int k = 0; k < 10000; ++k) {
    const double u = r.uniform();
    lo = std::min(lo, u), hi = std::max(hi, u), sum += u;
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.01);
  EXPECT_LT(lo, 0.001);
  EXPECT_GT(hi, 0.999);
}

namespace {

Params plummer_params(std::int64_t n) {
  Params p;
  p.n = n;
  p.ic = InitialConditions::plummer;
  p.seed = 2024;
  return p;
}

// Kinetic and (unsoftened) potential energy of all bodies, in double.
std::pair<double, double> energies(const HostBodies<double>& b) {
  double k = 0, w = 0;
  const std::size_t n = b.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& v = b.vel[i];
    k += 0.5 * b.pos_mass[i].w * (v.x * v.x + v.y * v.y + v.z * v.z);
    for (std::size_t j = i + 1; j < n; ++j) {
      const double dx = b.pos_mass[i].x - b.pos_mass[j].x, dy = b.pos_mass[i].y - b.pos_mass[j].y,
                   dz = b.pos_mass[i].z - b.pos_mass[j].z;
      w -= b.pos_mass[i].w * b.pos_mass[j].w / std::sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return {k, w};
}

}  // namespace

TEST(NbodyInitialConditions, PlummerIsInVirialEquilibriumInNbodyUnits) {
  const std::int64_t n = 4096;
  HostBodies<double> b;
  generate_bodies(context(), plummer_params(n), n, Range{0, n}, b);
  const auto [k, w] = energies(b);
  // N-body units: E = -1/4, 2K = -W; sampling noise ~ 1/sqrt(N) and the 99.9% mass cut.
  EXPECT_NEAR(k + w, -0.25, 0.02);
  EXPECT_NEAR(2 * k / -w, 1.0, 0.08);
  double mass = 0, mx = 0, mv = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    mass += b.pos_mass[i].w;
    mx += b.pos_mass[i].w * b.pos_mass[i].x;
    mv += b.pos_mass[i].w * b.vel[i].y;
    EXPECT_EQ(b.ids[i], i);
  }
  EXPECT_NEAR(mass, 1.0, 1e-12);
  EXPECT_NEAR(mx, 0.0, 1e-12);  // centre-of-mass frame
  EXPECT_NEAR(mv, 0.0, 1e-12);
  // Half the mass within the half-mass radius 0.769 (virial radius 1).
  int inside = 0;
  for (const auto& p : b.pos_mass) inside += std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z) < 0.7686;
  EXPECT_NEAR(double(inside) / n, 0.5, 0.03);
}

TEST(NbodyInitialConditions, ScalingWithMassAndRadius) {
  Params p = plummer_params(1024);
  p.total_mass = 8.0;
  p.plummer.virial_radius = 2.0;
  p.G = 0.5;
  HostBodies<double> b;
  generate_bodies(context(), p, 1024, Range{0, 1024}, b);
  const auto [k, w] = energies(b);
  // Virial equilibrium again: 2K = -G W_(G=1); the energy scales as G M^2 / R.
  EXPECT_NEAR(2 * k / -(p.G * w), 1.0, 0.12);
  EXPECT_NEAR(k + p.G * w, -0.25 * p.G * 64 / 2, 0.1 * 4);
}

TEST(NbodyInitialConditions, UniformIsTheSeedsCube) {
  Params p;
  p.n = 500;
  p.ic = InitialConditions::uniform;
  p.total_mass = 500;
  HostBodies<float> b;
  generate_bodies(context(), p, 500, Range{0, 500}, b);
  for (std::size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(b.pos_mass[i].w, 1.0f);  // the seeds' unit masses
    for (float c : {b.pos_mass[i].x, b.pos_mass[i].y, b.pos_mass[i].z, b.vel[i].x, b.vel[i].y, b.vel[i].z}) {
      EXPECT_GE(c, -1.0f);
      EXPECT_LE(c, 1.0f);
    }
  }
}

TEST(NbodyInitialConditions, GalaxiesFlyTowardsEachOther) {
  Params p;
  p.n = 3000;
  p.ic = InitialConditions::galaxies;
  p.galaxies.mass_ratio = 0.5;
  p.galaxies.separation = 12;
  p.galaxies.impact_parameter = 3;
  HostBodies<double> b;
  generate_bodies(context(), p, 3000, Range{0, 3000}, b);
  const std::int64_t n1 = first_galaxy_bodies(p, 3000);
  EXPECT_EQ(n1, 2000);
  double m[2] = {}, cx[2][3] = {}, cv[2][3] = {};
  for (std::int64_t i = 0; i < 3000; ++i) {
    const int g = i < n1 ? 0 : 1;
    const auto& x = b.pos_mass[i];
    m[g] += x.w;
    cx[g][0] += x.w * x.x, cx[g][1] += x.w * x.y, cx[g][2] += x.w * x.z;
    cv[g][0] += x.w * b.vel[i].x, cv[g][1] += x.w * b.vel[i].y;
  }
  EXPECT_NEAR(m[1] / m[0], 0.5, 1e-12);
  for (int g = 0; g < 2; ++g)
    for (int k = 0; k < 3; ++k) cx[g][k] /= m[g], cv[g][k] /= m[g];
  EXPECT_NEAR(cx[1][0] - cx[0][0], 12.0, 1e-9);
  EXPECT_NEAR(cx[1][1] - cx[0][1], 3.0, 1e-9);
  EXPECT_NEAR(m[0] * cx[0][0] + m[1] * cx[1][0], 0.0, 1e-9);  // centre of mass at the origin
  // Parabolic approach along -x: relative speed sqrt(2 G M / d).
  EXPECT_NEAR(cv[1][0] - cv[0][0], -std::sqrt(2.0 * 1.0 / std::sqrt(12.0 * 12 + 9)), 1e-9);
  EXPECT_NEAR(cv[1][1] - cv[0][1], 0.0, 1e-9);
}
