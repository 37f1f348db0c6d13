// The blocked sweep across ranks (issue 36; 2 and 4 ranks): the grid cut along z, each pass
// first exchanging k planes next to each z face. On the cpu engine's reference pass (no device
// needed: the protocol across ranks runs in CI) and on the cuda engine through every device
// transport (skipped without a device):
//  - k = 2, 3, 4 give the split step's bits on the same decomposition: random fields, random materials, PEC or periodic z, a periodic x (wrapped in the
//    pass); ranks of one material beside ranks of another, and a one-material rank whose
//    neighbour's planes next to it hold another material (the table it must compute them with);
//  - a soft source on the first rank only, a probe on the last: every rank ends its passes at
//    the same steps (a rank that held a step back while another ran a pass would hang here);
//  - auto takes the blocked sweep on a z cut (cuda: the split step's bits) and keeps the fused
//    sweep on an x cut, saying why; a forced blocked sweep on an x cut is refused on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "comm/cart.hpp"
#include "comm/transport.hpp"
#include "core/error.hpp"
#include "tests/solvers/fdtd/fdtd_test_util.hpp"
#include "tests/solvers/fdtd/gpu_test_util.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using namespace tessera::fdtd;
using tessera::test::context;

namespace {

constexpr std::int64_t kLayersPerRank = 12;

enum class Fill { random_shapes, uniform_per_rank, uniform_beside_materials };

// 45 x 37 x (12 P) cells, 12 z layers per rank. random_shapes: 30 random shapes of five
// materials and PEC. uniform_per_rank: rank 0's layers all m2, the others vacuum.
// uniform_beside_materials: the same and a small m3 box inside rank 0, which then has two
// materials while rank 1 has one and reads m2 planes beside it.
Model ranks_model(int ranks, std::uint64_t seed, Fill fill, bool periodic_z) {
  Model m = fdtd::test::box_model({45, 37, kLayersPerRank * ranks}, 0.9);
  m.faces[0] = {FaceKind::periodic, FaceKind::periodic};
  if (periodic_z) m.faces[2] = {FaceKind::periodic, FaceKind::periodic};
  std::mt19937_64 rng = tessera::test::rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 5; ++i) m.materials.push_back({"m" + std::to_string(i), 1 + 9 * u(rng), 3 * u(rng), false, {}});
  if (fill == Fill::random_shapes) {
    fdtd::test::add_random_shapes(m, rng, 30, 6);  // pec (1) and m0..m4
  } else {
    // Cells lo <= c < hi (their centres inside the box) of material `material` (m2: 4).
    const auto box = [&](int material, Index3 lo, Index3 hi) {
      Shape s;
      s.kind = ShapeKind::box;
      s.material = material;
      for (int a = 0; a < 3; ++a) {
        s.min[a] = (double(lo[a]) - 0.25) * m.cell_size[a];
        s.max[a] = (double(hi[a]) - 0.25) * m.cell_size[a];
      }
      m.shapes.push_back(s);
    };
    box(4, {-1, -1, 0}, {46, 38, kLayersPerRank});
    if (fill == Fill::uniform_beside_materials) box(5, {10, 10, 3}, {20, 17, 7});
  }
  return m;
}

// A stepper on a decomposition it owns (the ghosts keep references to it).
struct DecomposedRun {
  std::unique_ptr<comm::CartDecomposition> decomp;
  std::unique_ptr<Stepper> stepper;
};

DecomposedRun make_run(const Model& model, std::array<int, 3> dims, comm::Transport& transport, Sweep sweep, int k,
                       Backend backend) {
  Model m = model;
  m.sweep = sweep;
  m.block_steps = k;
  DecomposedRun r;
  r.decomp = std::make_unique<comm::CartDecomposition>(context(), m.cells, dims,
                                                       std::array<bool, 3>{m.periodic(0), m.periodic(1), m.periodic(2)});
  const LocalDomain d = local_domain(*r.decomp);
  auto engine = make_engine(backend, d, h_coefficients(m));
  auto ghosts = make_halo_ghosts(*r.decomp, transport, engine->layout());
  r.stepper = std::make_unique<Stepper>(m, d, std::move(engine), std::move(ghosts));
  return r;
}

// The parameter: "cpu" (the cpu engine's reference pass through host MPI, no device needed) or
// a device transport for the cuda engine; at least two ranks, or the test is skipped.
class FdtdBlockedRanks : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    p_ = context().size();
    if (p_ < 2) GTEST_SKIP() << "one rank: test_blocked.cpp covers it";
    if (GetParam() == "cpu") {
      backend_ = Backend::cpu;
      transport_ = comm::make_transport(context(), Backend::cpu, "auto").transport;
      return;
    }
    TESSERA_REQUIRE_GPU();
    std::string why;
    transport_ = fdtd::test::device_transport(GetParam(), why);
    if (!transport_) GTEST_SKIP() << "transport " << GetParam() << " unavailable: " << why;
  }
  DecomposedRun run(const Model& m, std::array<int, 3> dims, Sweep sweep, int k) {
    return make_run(m, dims, *transport_, sweep, k, backend_);
  }
  int p_ = 1;
  Backend backend_ = Backend::cuda;
  std::unique_ptr<comm::Transport> transport_;
};

}  // namespace

TEST_P(FdtdBlockedRanks, BlockedSweepAcrossRanksGivesTheSplitStepsBits) {
  const std::array<int, 3> z_cut{1, 1, p_};

  struct Case {
    Fill fill;
    bool periodic_z;
    int k;
  };
  const Case cases[] = {{Fill::random_shapes, false, 2},          {Fill::random_shapes, false, 3},
                        {Fill::random_shapes, true, 4},           {Fill::uniform_per_rank, false, 4},
                        {Fill::uniform_per_rank, true, 3},        {Fill::uniform_beside_materials, false, 4},
                        {Fill::uniform_beside_materials, true, 2}};
  // Each case with the planes exchanged before the pass and with the pass split around them
  // (TESSERA_FDTD_BLOCKED_OVERLAP: 12 layers per rank make 3 stretches of 4, the inner one
  // reading layers 1..10 only; on the cpu the protocol alone, its pass being all in one part).
  for (const bool overlap : {false, true})
  for (const Case& c : cases) {
    const Model m = ranks_model(p_, 31 + c.k, c.fill, c.periodic_z);
    const std::string what = "k=" + std::to_string(c.k) + " fill " + std::to_string(int(c.fill)) +
                             (c.periodic_z ? " periodic z" : " pec z") + " via " + GetParam() +
                             (overlap ? ", overlapped" : "");
    ASSERT_EQ(setenv("TESSERA_FDTD_BLOCKED_OVERLAP", overlap ? "1" : "0", 1), 0);
    auto blocked = run(m, z_cut, Sweep::blocked, c.k);
    unsetenv("TESSERA_FDTD_BLOCKED_OVERLAP");
    EXPECT_EQ(blocked.stepper->sweep_reason().find("while the inner z stretches update") != std::string::npos,
              overlap)
        << blocked.stepper->sweep_reason();
    auto split = run(m, z_cut, Sweep::split, c.k);
    ASSERT_EQ(blocked.stepper->engine().domain().n[2], kLayersPerRank);
    ASSERT_EQ(blocked.stepper->block_steps(), c.k) << blocked.stepper->sweep_reason();
    EXPECT_NE(blocked.stepper->sweep_reason().find("one exchange of that many z planes per pass"), std::string::npos)
        << blocked.stepper->sweep_reason();
    blocked.stepper->engine().fill_random(99);
    split.stepper->engine().fill_random(99);
    for (int n = 0; n < 13; ++n) {  // whole passes, then a lone step
      blocked.stepper->step();
      split.stepper->step();
    }
    EXPECT_GE(blocked.stepper->blocked_passes(), 12 / c.k) << what;
    const auto fb = fdtd::test::owned_fields(*blocked.stepper), fs = fdtd::test::owned_fields(*split.stepper);
    for (int comp = 0; comp < kComponents; ++comp) {
      std::int64_t differ = 0;
      for (std::size_t i = 0; i < fb[comp].size(); ++i) differ += std::memcmp(&fb[comp][i], &fs[comp][i], 4) != 0;
      EXPECT_EQ(differ, 0) << kComponentName[comp] << " values differ on rank " << context().rank() << ", " << what;
    }
  }
}

TEST_P(FdtdBlockedRanks, ASourceOnOneRankEndsThePassesOfAll) {
  const int p = p_;
  // Dielectric layers on rank 0 (a random PEC shape could swallow the source).
  Model m = ranks_model(p, 5, Fill::uniform_beside_materials, false);
  // A short Gaussian pulse in rank 0's layers: it acts for its first steps, then falls silent
  // (its kick rounds to zero in float32 some 30 steps in).
  m.sources.push_back(fdtd::test::soft_source(kEz, {22, 18, 4}, fdtd::test::gaussian(1.5 * m.dt, 6 * m.dt), 1.0));
  fdtd::test::add_probe(m, "last rank", {{kEz, {22, 18, kLayersPerRank * p - 3}}, {kHy, {5, 30, kLayersPerRank * p - 8}}});
  m.probe_every = 7;
  auto blocked = run(m, {1, 1, p}, Sweep::blocked, 4);
  auto split = run(m, {1, 1, p}, Sweep::split, 4);
  ASSERT_EQ(blocked.stepper->block_steps(), 4) << blocked.stepper->sweep_reason();
  for (int n = 0; n < 80; ++n) {
    blocked.stepper->step();
    split.stepper->step();
  }
  EXPECT_GT(blocked.stepper->blocked_passes(), 0) << "the pulse never fell silent";
  const auto fb = fdtd::test::owned_fields(*blocked.stepper);
  float largest = 0;
  for (const auto& c : fb)
    for (const float v : c) largest = std::max(largest, std::abs(v));
  EXPECT_GT(largest, 0.0f) << "the pulse has not reached rank " << context().rank();
  EXPECT_EQ(fb, fdtd::test::owned_fields(*split.stepper)) << "rank " << context().rank();
  std::vector<std::int64_t> sb, ss;
  EXPECT_EQ(blocked.stepper->drain_samples(sb), split.stepper->drain_samples(ss)) << "probe samples";
  EXPECT_EQ(sb, ss);
}

// Auto takes the blocked sweep on a z cut where the fused sweep runs (cuda), with the split
// step's bits; an x cut keeps the fused sweep under auto and is refused when forced.
TEST_P(FdtdBlockedRanks, AutoTakesAZCutAndAnXCutIsRefused) {
  const int p = p_;
  const Model m = ranks_model(p, 8, Fill::random_shapes, false);
  auto z_auto = run(m, {1, 1, p}, Sweep::automatic, 4);
  if (backend_ == Backend::cuda) {
    ASSERT_EQ(z_auto.stepper->block_steps(), 4) << z_auto.stepper->sweep_reason();
    EXPECT_NE(z_auto.stepper->sweep_reason().find("one exchange of that many z planes per pass"), std::string::npos)
        << z_auto.stepper->sweep_reason();
    auto split = run(m, {1, 1, p}, Sweep::split, 4);
    z_auto.stepper->engine().fill_random(17);
    split.stepper->engine().fill_random(17);
    for (int n = 0; n < 9; ++n) {  // two passes and a lone step
      z_auto.stepper->step();
      split.stepper->step();
    }
    EXPECT_EQ(z_auto.stepper->blocked_passes(), 2);
    EXPECT_EQ(fdtd::test::owned_fields(*z_auto.stepper), fdtd::test::owned_fields(*split.stepper))
        << "rank " << context().rank();
    auto x_auto = run(m, {p, 1, 1}, Sweep::automatic, 4);
    EXPECT_EQ(x_auto.stepper->block_steps(), 0);
    EXPECT_TRUE(x_auto.stepper->fused()) << x_auto.stepper->sweep_reason();
    EXPECT_NE(x_auto.stepper->sweep_reason().find("not blocked: this rank has a neighbour along x"), std::string::npos)
        << x_auto.stepper->sweep_reason();
  } else {  // the cpu engine has no fused sweep, and its pass is a reference: auto splits
    EXPECT_EQ(z_auto.stepper->block_steps(), 0) << z_auto.stepper->sweep_reason();
  }
  try {
    auto forced = run(m, {p, 1, 1}, Sweep::blocked, 4);
    ADD_FAILURE() << "a forced blocked sweep on an x cut was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cut along z only"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, FdtdBlockedRanks, ::testing::Values("cpu", "staged", "nccl", "mpi"),
                         [](const auto& info) { return info.param; });
