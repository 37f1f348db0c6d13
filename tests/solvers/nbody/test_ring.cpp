// The ring on P = 1..4 ranks (cpu engine, host transport) against the O(N^2) serial
// reference, including N < P (ranks without bodies) and uneven blocks; the initial
// conditions being the same bits whatever the number of ranks; and common_mass on P ranks.
#include <gtest/gtest.h>

#include <cmath>

#include "comm/transport.hpp"
#include "core/partition.hpp"
#include "solvers/nbody/common_mass.hpp"
#include "solvers/nbody/backend.hpp"
#include "solvers/nbody/initial_conditions.hpp"
#include "solvers/nbody/reproducible_sum.hpp"
#include "solvers/nbody/ring_forces.hpp"
#include "tests/solvers/nbody/nbody_test_util.hpp"

using namespace tessera;
using namespace tessera::nbody;
using tessera::nbody::test::context;
namespace nt = tessera::nbody::test;

namespace {

template <class T>
void ring_matches_reference(double tol) {
  auto& ctx = context();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  for (std::int64_t n : {1, 3, 67, 1000}) {
    const auto all = nt::random_bodies<T>(n, 31 + n);
    const Range r = block_range(n, ctx.size(), ctx.rank());
    EngineOptions o;
    o.G = 0.7;
    o.eps = 0.02;
    o.offset = r.begin;
    o.cpu_threads = 1;
    auto engine = make_cpu_engine<T>(r.count, o);
    HostBodies<T> b;
    b.pos_mass.assign(all.begin() + r.begin, all.begin() + r.end());
    b.vel.assign(r.count, Vec4<T>{0, 0, 0, 0});
    b.acc.assign(r.count, Vec4<T>{T(5), T(5), T(5), T(5)});  // poisoned: every value must be written
    engine->upload(b);
    RingForces<T> ring(ctx, *transport, n);
    for (int pass = 0; pass < 2; ++pass) {  // twice: the ring's buffers are reused correctly
      ring.run(*engine, BlockPass<T>{.potential = true});
      engine->download(b);
      const auto ref = nt::reference_forces<T>(all, r, o.G, softening2<T>(o.eps));
      const auto d = nt::deviation(b.acc, ref);
      EXPECT_LT(d.acc, tol) << "n = " << n << " pass " << pass;
      EXPECT_LT(d.phi, tol) << "n = " << n << " pass " << pass;
      const double worst = comm::allreduce(ctx, std::max(d.acc, d.phi), comm::Op::max);
      if (ctx.is_root() && pass == 0)
        std::printf("  n = %4lld on %d rank(s): largest relative deviation %.2e (tolerance %.0e)\n",
                    static_cast<long long>(n), ctx.size(), worst, tol);
    }
  }
}

}  // namespace

TEST(NbodyRing, MatchesSerialReferenceSingle) { ring_matches_reference<float>(1e-5); }
TEST(NbodyRing, MatchesSerialReferenceDouble) { ring_matches_reference<double>(1e-12); }

TEST(NbodyRing, LastBlockKicksAndScratchLeavesStateAlone) {
  auto& ctx = context();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  const std::int64_t n = 50;
  const auto all = nt::random_bodies<double>(n, 9);
  const Range r = block_range(n, ctx.size(), ctx.rank());
  EngineOptions o;
  o.offset = r.begin;
  auto engine = make_cpu_engine<double>(r.count, o);
  HostBodies<double> b;
  b.pos_mass.assign(all.begin() + r.begin, all.begin() + r.end());
  b.vel.assign(r.count, Vec4<double>{1, 1, 1, 0});
  b.acc.assign(r.count, Vec4<double>{0, 0, 0, 0});
  engine->upload(b);
  RingForces<double> ring(ctx, *transport, n);
  ring.run(*engine, BlockPass<double>{.kick_dt = 0.25});
  HostBodies<double> after;
  engine->download(after);
  for (std::int64_t i = 0; i < r.count; ++i) {
    EXPECT_DOUBLE_EQ(after.vel[i].x, 1 + 0.25 * after.acc[i].x);
    EXPECT_EQ(after.acc[i].w, 0.0);
  }
  // A potential-only pass goes to the scratch buffer: acc and vel stay as they were.
  ring.run(*engine, BlockPass<double>{.potential = true, .scratch = true, .kick_dt = 1.0});
  HostBodies<double> again;
  engine->download(again);
  std::vector<Vec4<double>> scratch;
  engine->download_scratch(scratch);
  for (std::int64_t i = 0; i < r.count; ++i) {
    EXPECT_EQ(again.vel[i].x, after.vel[i].x);
    EXPECT_EQ(again.acc[i].x, after.acc[i].x);
    EXPECT_EQ(scratch[i].x, after.acc[i].x);  // same sums in the same order
    EXPECT_LT(scratch[i].w, 0.0);
  }
}

TEST(NbodyRing, InitialConditionsAreTheSameOnAnyRankCount) {
  auto& ctx = context();
  for (auto ic : {InitialConditions::plummer, InitialConditions::galaxies, InitialConditions::uniform}) {
    Params p;
    p.ic = ic;
    p.seed = 77;
    const std::int64_t n = 5000;
    p.n = n;
    const Range mine = block_range(n, ctx.size(), ctx.rank());
    HostBodies<float> block, whole;
    generate_bodies(ctx, p, n, mine, block);
    generate_bodies(ctx, p, n, Range{0, n}, whole);
    for (std::int64_t i = 0; i < mine.count; ++i) {
      const auto& a = block.pos_mass[i];
      const auto& b = whole.pos_mass[mine.begin + i];
      ASSERT_EQ(a.x, b.x);
      ASSERT_EQ(a.y, b.y);
      ASSERT_EQ(a.z, b.z);
      ASSERT_EQ(a.w, b.w);
      ASSERT_EQ(block.vel[i].z, whole.vel[mine.begin + i].z);
      ASSERT_EQ(block.ids[i], std::uint64_t(mine.begin + i));
    }
  }
}

TEST(NbodyRing, ReproducibleSumIsBitwiseTheSerialChunkedSum) {
  // The distributed sum equals the chunked sum one rank computes alone, to the bit, for any
  // number of ranks (and differs from a naive left-to-right sum, so the test can fail).
  auto& ctx = context();
  const std::int64_t n = 20011;
  auto term = [](std::int64_t i) {
    BodyRandom r(3, static_cast<std::uint64_t>(i));
    return std::array<double, 2>{r.uniform(-1, 1) * 1e3, r.uniform() * 1e-3};
  };
  const auto got = reproducible_sum<2>(ctx, n, term);
  const std::int64_t chunk = reproducible_chunk(n);
  std::array<double, 2> serial{};
  for (std::int64_t c = 0; c * chunk < n; ++c) {
    std::array<double, 2> s{};
    for (std::int64_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
      const auto t = term(i);
      s[0] += t[0], s[1] += t[1];
    }
    serial[0] += s[0], serial[1] += s[1];
  }
  EXPECT_EQ(got[0], serial[0]);
  EXPECT_EQ(got[1], serial[1]);
}

// common_mass on P ranks: the mass when every body on every rank has it; 0 when one body on
// one rank differs (by one ulp), is massless or NaN; ranks without bodies do not vote.
TEST(NbodyRing, CommonMassIsFoundOnlyWhenEveryBodyHasIt) {
  auto& ctx = context();
  for (std::int64_t n : {1, 3, 1000}) {
    const Range r = block_range(n, ctx.size(), ctx.rank());
    const auto all = nt::random_bodies<float>(n, 5, true);
    std::vector<Vec4<float>> mine(all.begin() + r.begin, all.begin() + r.end());
    EXPECT_EQ(common_mass<float>(ctx, mine), 1.0f / float(n)) << "n = " << n;
    const auto differ = nt::random_bodies<double>(n, 5);
    std::vector<Vec4<double>> theirs(differ.begin() + r.begin, differ.begin() + r.end());
    EXPECT_EQ(common_mass<double>(ctx, theirs), n == 1 ? differ[0].w : 0.0) << "n = " << n;
    // One body, on the last rank that holds any, changed.
    const int last = static_cast<int>(std::min<std::int64_t>(n, ctx.size())) - 1;
    for (float odd : {std::nextafter(1.0f / float(n), 1.0f), 0.0f, -1.0f / float(n), std::nanf("")}) {
      std::vector<Vec4<float>> changed = mine;
      if (ctx.rank() == last) changed.back().w = odd;
      const bool alone_and_valid = n == 1 && odd > 0;  // a lone body's mass is common
      EXPECT_EQ(common_mass<float>(ctx, changed), alone_and_valid ? odd : 0.0f) << "n = " << n << ", one mass " << odd;
    }
  }
}
