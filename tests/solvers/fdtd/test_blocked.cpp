// The blocked sweep (issue 36; gpu label, skipped without a device, except the refusals):
//  - k = 2, 3, 4 steps per pass give the split step's bits: random fields, random materials
//    (and a uniform grid), sizes that are no multiple of a tile, PEC walls and periodic axes,
//    after 12 steps (whole passes) and after a 13th (a lone step, run fused);
//  - probes, dft monitors and flux planes at their own steps end a pass there and see their
//    step's fields; sources (acting every step) leave auto on the fused sweep and a forced
//    blocked sweep one fused step at a time, bitwise the split step all the same;
//  - auto takes it where it applies and says why not elsewhere; a forced blocked sweep where
//    it cannot run is refused with the reason; with CPML (one rank) the slabs' corrections
//    run inside the pass, bitwise the split step, fields and psi (slabs of both faces of an
//    axis that overlap are refused on the cuda engine);
//  - the cpu engine's reference pass gives the split steps' bits (no device needed), CPML too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
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

namespace {

// Random materials (conductors among them) in 30 shapes; `periodic`: y and z wrap.
Model blocked_model(Index3 cells, std::uint64_t seed, bool uniform, bool periodic) {
  Model m = fdtd::test::box_model(cells, 0.9);
  if (periodic) m.faces[1] = m.faces[2] = {FaceKind::periodic, FaceKind::periodic};
  std::mt19937_64 rng = tessera::test::rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 5; ++i) m.materials.push_back({"m" + std::to_string(i), 1 + 9 * u(rng), 3 * u(rng), false, {}});
  if (!uniform) fdtd::test::add_random_shapes(m, rng, 30, 6);  // pec (1) and m0..m4
  return m;
}

// A stepper that owns what its ghosts use (a periodic run's decomposition and transport): they
// go after it.
using StepperHandle = std::unique_ptr<Stepper, std::function<void(Stepper*)>>;

StepperHandle make_stepper(const Model& model, Sweep sweep, int block_steps, Backend backend = Backend::cuda) {
  Model m = model;
  m.sweep = sweep;
  m.block_steps = block_steps;
  if (!m.periodic(0) && !m.periodic(1) && !m.periodic(2)) {
    const LocalDomain d = whole_domain(m.cells, {false, false, false});
    return StepperHandle(new Stepper(m, d, make_engine(backend, d, h_coefficients(m)), make_local_ghosts(d)),
                         [](Stepper* s) { delete s; });
  }
  // A periodic axis on a device: its wrap is a halo exchange of this one rank with itself
  // (LocalGhosts wraps in host memory only).
  auto& ctx = tessera::test::context();
  std::shared_ptr<comm::Transport> transport = comm::make_transport(ctx, backend, "staged").transport;
  auto decomp = std::make_shared<comm::CartDecomposition>(ctx, m.cells, std::array<int, 3>{1, 1, 1},
                                                          std::array<bool, 3>{m.periodic(0), m.periodic(1), m.periodic(2)});
  const LocalDomain d = local_domain(*decomp);
  auto engine = make_engine(backend, d, h_coefficients(m));
  auto ghosts = make_halo_ghosts(*decomp, *transport, engine->layout());
  return StepperHandle(new Stepper(m, d, std::move(engine), std::move(ghosts)),
                       [decomp, transport](Stepper* s) { delete s; });
}

void expect_same_fields(Stepper& a, Stepper& b, const std::string& what) {
  const auto fa = fdtd::test::owned_fields(a), fb = fdtd::test::owned_fields(b);
  for (int c = 0; c < kComponents; ++c) EXPECT_EQ(fa[c], fb[c]) << kComponentName[c] << " " << what;
}

// CPML under the blocked sweep (one rank): the slabs' corrections inside the pass. Slabs on one
// face and on two (beside a periodic y and z and per-cell materials), on all six, thin and
// thick, on grids of one tile and of several (both tile shapes, forced z stretches: psi of a
// cell that two tiles or two stretches compute), k = 2, 3, 4, passes of k and of fewer steps
// and a lone step: fields and every psi array equal the split run's bits.
void expect_cpml_inside_the_pass(Backend backend) {
  struct Case {
    const char* name;
    Index3 cells;
    int thickness;
    bool six, periodic;
    const char* shape;  // TESSERA_FDTD_BLOCKED_TILE, or none
  };
  for (const Case& c : {Case{"x low, periodic y z", {29, 23, 26}, 3, false, true, nullptr},
                        Case{"x low, z high", {29, 23, 26}, 5, false, false, nullptr},
                        Case{"six faces", {29, 23, 26}, 4, true, false, nullptr},
                        Case{"six faces, thin", {29, 23, 26}, 1, true, false, nullptr},
                        Case{"six faces, 32 x 16 tiles, 5 stretches", {67, 41, 50}, 6, true, false, "16,5"},
                        Case{"x low, periodic y z, 7 stretches", {67, 41, 50}, 3, false, true, "32,7"}})
    for (const int k : {2, 3, 4}) {
      Model m = blocked_model(c.cells, 40 + k, false, c.periodic);
      m.faces[0] = {FaceKind::cpml, FaceKind::pec};
      if (!c.periodic) m.faces[2] = {FaceKind::pec, FaceKind::cpml};
      if (c.six)
        for (auto& faces : m.faces) faces = {FaceKind::cpml, FaceKind::cpml};
      m.cpml.thickness = c.thickness;
      m.cpml.kappa_max = 3;
      m.cpml.alpha_max = 0.05;
      const std::string what = std::string(c.name) + ", thickness " + std::to_string(c.thickness) +
                               ", k=" + std::to_string(k) + " on " + std::string(to_string(backend));
      if (c.shape) {
        ASSERT_EQ(setenv("TESSERA_FDTD_BLOCKED_TILE", c.shape, 1), 0);
      }
      auto blocked = make_stepper(m, Sweep::blocked, k, backend);
      unsetenv("TESSERA_FDTD_BLOCKED_TILE");
      auto split = make_stepper(m, Sweep::split, k, backend);
      ASSERT_EQ(blocked->block_steps(), k) << blocked->sweep_reason();
      EXPECT_NE(blocked->sweep_reason().find("the CPML slabs' corrections inside the pass"), std::string::npos)
          << blocked->sweep_reason();
      blocked->engine().fill_random(23);
      split->engine().fill_random(23);
      // k = 2 and 4: passes of k, then a lone step; k = 3: passes of 3, then one of 2.
      const int steps = k == 3 ? 14 : 13;
      for (int n = 0; n < steps; ++n) {
        blocked->step();
        split->step();
      }
      EXPECT_GE(blocked->blocked_passes(), 12 / k) << what;
      expect_same_fields(*blocked, *split, what);
      ASSERT_EQ(blocked->slabs().size(), split->slabs().size());
      for (std::size_t sl = 0; sl < blocked->slabs().size(); ++sl)
        for (int w = 0; w < 4; ++w) {
          std::vector<float> a(static_cast<std::size_t>(blocked->slabs()[sl].local.cells())), b(a.size());
          blocked->engine().download_psi(static_cast<int>(sl), w, a);
          split->engine().download_psi(static_cast<int>(sl), w, b);
          EXPECT_EQ(a, b) << "psi " << w << " of slab " << sl << ", " << what;
        }
    }
}

}  // namespace

TEST(FdtdGpuBlocked, BlockedSweepGivesTheSplitStepsBits) {
  TESSERA_REQUIRE_GPU();
  for (const bool periodic : {false, true})
    for (const bool uniform : {false, true})
      for (const int k : {2, 3, 4}) {
        // 67 x 41 x 50: no multiple of a 32 x 32 tile's inner 28..24 columns; 50 layers make
        // several z stretches (each fills its own pipeline).
        const Model m = blocked_model({67, 41, 50}, 17 + k, uniform, periodic);
        const std::string what = "k=" + std::to_string(k) + (uniform ? " uniform" : " materials") +
                                 (periodic ? " periodic y z" : " pec");
        auto blocked = make_stepper(m, Sweep::blocked, k);
        auto split = make_stepper(m, Sweep::split, k);
        ASSERT_EQ(blocked->block_steps(), k) << blocked->sweep_reason();
        ASSERT_EQ(split->block_steps(), 0);
        blocked->engine().fill_random(99);
        split->engine().fill_random(99);
        for (int n = 0; n < 12; ++n) {
          blocked->step();
          split->step();
        }
        EXPECT_EQ(blocked->steps(), 12);
        expect_same_fields(*blocked, *split, what + " after 12 steps");
        blocked->step();  // held back, then run alone (fused) when the fields are read
        split->step();
        expect_same_fields(*blocked, *split, what + " after 13 steps");
      }
}

// The other tile shape (32 x 16) and forced z stretches (TESSERA_FDTD_BLOCKED_TILE, read when
// the sweep is enabled): many stretches of a few layers each.
TEST(FdtdGpuBlocked, TileShapesAndStretchesGiveTheSplitStepsBits) {
  TESSERA_REQUIRE_GPU();
  for (const char* shape : {"16,7", "32,9", "16,1"})
    for (const bool periodic : {false, true})
      for (const int k : {2, 3, 4}) {
        ASSERT_EQ(setenv("TESSERA_FDTD_BLOCKED_TILE", shape, 1), 0);
        const Model m = blocked_model({53, 37, 29}, 3 + k, false, periodic);
        auto blocked = make_stepper(m, Sweep::blocked, k);
        unsetenv("TESSERA_FDTD_BLOCKED_TILE");
        auto split = make_stepper(m, Sweep::split, k);
        ASSERT_EQ(blocked->block_steps(), k) << blocked->sweep_reason();
        blocked->engine().fill_random(11);
        split->engine().fill_random(11);
        for (int n = 0; n < 12; ++n) {
          blocked->step();
          split->step();
        }
        expect_same_fields(*blocked, *split,
                           std::string("tile ") + shape + " k=" + std::to_string(k) + (periodic ? " periodic" : " pec"));
      }
}

// Tiny grids: narrower than a tile's halo, a periodic axis shorter than the pipeline.
TEST(FdtdGpuBlocked, SmallGridsGiveTheSplitStepsBits) {
  TESSERA_REQUIRE_GPU();
  for (const bool periodic : {false, true})
    for (const Index3 cells : {Index3{5, 3, 4}, Index3{33, 9, 2}, Index3{1, 40, 7}}) {
      const Model m = blocked_model(cells, 5, false, periodic);
      auto blocked = make_stepper(m, Sweep::blocked, 4);
      auto split = make_stepper(m, Sweep::split, 4);
      ASSERT_EQ(blocked->block_steps(), 4) << blocked->sweep_reason();
      blocked->engine().fill_random(7);
      split->engine().fill_random(7);
      for (int n = 0; n < 12; ++n) {
        blocked->step();
        split->step();
      }
      expect_same_fields(*blocked, *split,
                         std::to_string(cells[0]) + "x" + std::to_string(cells[1]) + "x" + std::to_string(cells[2]) +
                             (periodic ? " periodic" : " pec"));
    }
}

// Probes every 3 steps, a dft monitor every 5 and a flux plane every 2: passes end at those
// steps, and samples, accumulators and energy equal the split run's.
TEST(FdtdGpuBlocked, MonitorsInsideABlockSeeTheirSteps) {
  TESSERA_REQUIRE_GPU();
  Model m = blocked_model({45, 38, 31}, 23, false, false);
  fdtd::test::add_probe(m, "p", {{kEz, {20, 19, 15}}, {kHx, {3, 30, 27}}, {kEy, {44, 0, 30}}});
  m.probe_every = 3;
  Spectrum sp;
  sp.frequencies = {1e10, 2e10, 4e10};
  sp.every = 5;
  m.dfts.push_back({"box", {kEx, kHz}, {{10, 10, 10}, {20, 15, 14}}, sp});
  sp.every = 2;
  m.fluxes.push_back(fdtd::test::z_plane("plane", m, 16, sp));
  auto blocked = make_stepper(m, Sweep::blocked, 4);
  auto split = make_stepper(m, Sweep::split, 4);
  ASSERT_EQ(blocked->block_steps(), 4) << blocked->sweep_reason();
  blocked->engine().fill_random(41);
  split->engine().fill_random(41);
  for (int n = 0; n < 31; ++n) {
    blocked->step();
    split->step();
  }
  expect_same_fields(*blocked, *split, "with monitors");
  std::vector<std::int64_t> sb, ss;
  const std::vector<float> rb = blocked->drain_samples(sb), rs = split->drain_samples(ss);
  EXPECT_EQ(sb, ss);
  EXPECT_EQ(rb, rs) << "probe samples";
  // The accumulators of the dft monitor's two components and the flux plane's four.
  const auto same_accumulators = [&](const std::vector<DftMonitor>& a, const std::vector<DftMonitor>& b,
                                     const char* kind) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      for (std::size_t q = 0; q < a[i].blocks.size(); ++q) {
        const std::size_t nf = a[i].spectrum->frequencies.size();
        EXPECT_EQ(Spectra::download(a[i].blocks[q], nf, blocked->engine()),
                  Spectra::download(b[i].blocks[q], nf, split->engine()))
            << kind << " " << i << " block " << q;
      }
  };
  same_accumulators(blocked->spectra().dfts(), split->spectra().dfts(), "dft");
  same_accumulators(blocked->spectra().fluxes(), split->spectra().fluxes(), "flux");
  EXPECT_EQ(blocked->local_energy().electric, split->local_energy().electric);
  EXPECT_EQ(blocked->local_energy().magnetic, split->local_energy().magnetic);
}

// A soft source acts while its value does not round to zero in float32: auto takes the
// blocked sweep, runs every step fused during the pulse and passes once it has fallen silent,
// with the split step's bits. A hard source sets E after every step: auto stays fused and says
// why; forced, the blocked sweep runs every step fused, with the split step's bits.
TEST(FdtdGpuBlocked, SoftSourcesPassOnceSilentHardOnesNever) {
  TESSERA_REQUIRE_GPU();
  Model m = blocked_model({40, 24, 36}, 29, false, false);
  // A Gaussian of 20 ps peaking at 60 ps: below float32's smallest value after about 0.3 ns,
  // some 160 steps of these 1 mm cells.
  m.sources.push_back(fdtd::test::soft_source(kEz, {20, 12, 18}, fdtd::test::gaussian(2e-11, 6e-11), 1e-2));
  {
    auto a = make_stepper(m, Sweep::automatic, 0);  // fdtd.block_steps unset
    auto split = make_stepper(m, Sweep::split, 0);
    EXPECT_EQ(a->block_steps(), m.pass_steps()) << a->sweep_reason();
    EXPECT_NE(a->sweep_reason().find("soft sources and sheets act until their value rounds to zero"), std::string::npos)
        << a->sweep_reason();
    a->engine().fill_random(3);
    split->engine().fill_random(3);
    for (int n = 0; n < 400; ++n) {
      a->step();
      split->step();
    }
    expect_same_fields(*a, *split, "soft source, 400 steps");
    EXPECT_GT(a->blocked_passes(), 40) << "passes once the pulse has fallen silent";
    EXPECT_LT(a->blocked_passes(), 100) << "no passes while it acts";
  }
  m.sources.back().hard = true;
  auto a = make_stepper(m, Sweep::automatic, 3);
  EXPECT_TRUE(a->fused()) << a->sweep_reason();
  EXPECT_EQ(a->block_steps(), 0);
  EXPECT_NE(a->sweep_reason().find("not blocked: hard sources set E after every step"), std::string::npos)
      << a->sweep_reason();
  auto forced = make_stepper(m, Sweep::blocked, 3);
  auto split = make_stepper(m, Sweep::split, 3);
  EXPECT_NE(forced->sweep_reason().find("every step runs fused"), std::string::npos) << forced->sweep_reason();
  forced->engine().fill_random(3);
  split->engine().fill_random(3);
  for (int n = 0; n < 10; ++n) {
    forced->step();
    split->step();
  }
  expect_same_fields(*forced, *split, "with a hard source");
  EXPECT_EQ(forced->blocked_passes(), 0);
}

// Auto takes the blocked sweep where it applies (fdtd.block_steps unset: 4 steps a pass), with
// CPML too where the slabs hold few of the cells (10% here; unset: 3 steps a pass).
TEST(FdtdGpuBlocked, AutoChoosesWhereItApplies) {
  TESSERA_REQUIRE_GPU();
  Model m = blocked_model({40, 24, 36}, 31, false, true);
  auto a = make_stepper(m, Sweep::automatic, 0);
  EXPECT_EQ(a->block_steps(), 4) << a->sweep_reason();
  EXPECT_TRUE(a->fused());
  EXPECT_NE(a->sweep_reason().find("blocked (up to 4 steps per pass"), std::string::npos) << a->sweep_reason();
  m.faces[0] = {FaceKind::cpml, FaceKind::pec};
  m.cpml.thickness = 4;
  auto c = make_stepper(m, Sweep::automatic, 0);
  EXPECT_EQ(c->block_steps(), 3) << c->sweep_reason();
  EXPECT_NE(c->sweep_reason().find("the CPML slabs' corrections inside the pass"), std::string::npos)
      << c->sweep_reason();
}

TEST(FdtdGpuBlocked, CpmlInsideThePassGivesTheSplitStepsBits) {
  TESSERA_REQUIRE_GPU();
  expect_cpml_inside_the_pass(Backend::cuda);
}

// The cuda pass takes a cell to lie in one slab per axis: where the slabs of both x faces
// overlap (7 cells, 4-cell slabs), a forced blocked sweep is refused with the reason (auto,
// with every cell in a slab, keeps the fused sweep before it asks: cpml_cell_share).
TEST(FdtdGpuBlocked, OverlappingCpmlSlabsAreRefused) {
  TESSERA_REQUIRE_GPU();
  Model m = blocked_model({7, 20, 18}, 3, false, false);
  m.faces[0] = {FaceKind::cpml, FaceKind::cpml};
  m.cpml.thickness = 4;
  auto a = make_stepper(m, Sweep::automatic, 4);
  EXPECT_EQ(a->block_steps(), 0) << a->sweep_reason();
  EXPECT_NE(a->sweep_reason().find("not blocked: the CPML slabs hold 100.0% of the cells"), std::string::npos)
      << a->sweep_reason();
  try {
    auto forced = make_stepper(m, Sweep::blocked, 4);
    ADD_FAILURE() << "a forced blocked sweep over overlapping slabs was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the CPML slabs of both x faces overlap"), std::string::npos) << e.what();
  }
}

// No device needed: the cpu engine's blocked sweep (a reference: the steps one after the other)
// gives the split steps' bits on PEC and periodic grids, a lone step included; auto keeps the
// split step on the cpu (no fused sweep, no faster pass).
TEST(FdtdBlocked, CpuEngineBlockedSweepGivesTheSplitStepsBits) {
  for (const bool periodic : {false, true})
    for (const int k : {2, 4}) {
      const Model m = blocked_model({19, 14, 11}, 7 + k, false, periodic);
      auto blocked = make_stepper(m, Sweep::blocked, k, Backend::cpu);
      auto split = make_stepper(m, Sweep::split, k, Backend::cpu);
      ASSERT_EQ(blocked->block_steps(), k) << blocked->sweep_reason();
      blocked->engine().fill_random(5);
      split->engine().fill_random(5);
      for (int n = 0; n < 13; ++n) {
        blocked->step();
        split->step();
      }
      EXPECT_GE(blocked->blocked_passes(), 12 / k);
      expect_same_fields(*blocked, *split, "cpu k=" + std::to_string(k) + (periodic ? " periodic" : " pec"));
    }
  const Model m = blocked_model({12, 10, 8}, 1, true, false);
  auto a = make_stepper(m, Sweep::automatic, 3, Backend::cpu);
  EXPECT_EQ(a->block_steps(), 0) << a->sweep_reason();
}

// fdtd.block_steps unset: passes of 4 steps, of 3 with CPML slabs; a value given is kept (the
// choice is the stepper's, the same on every engine).
TEST(FdtdBlocked, UnsetBlockStepsTakeThreeWithCpmlFourWithout) {
  Model m = blocked_model({29, 23, 26}, 5, false, false);
  EXPECT_EQ(make_stepper(m, Sweep::blocked, 0, Backend::cpu)->block_steps(), 4);
  m.faces[2] = {FaceKind::pec, FaceKind::cpml};
  m.cpml.thickness = 3;
  auto c = make_stepper(m, Sweep::blocked, 0, Backend::cpu);
  EXPECT_EQ(c->block_steps(), 3) << c->sweep_reason();
  EXPECT_NE(c->sweep_reason().find("blocked (up to 3 steps per pass"), std::string::npos) << c->sweep_reason();
  EXPECT_EQ(make_stepper(m, Sweep::blocked, 4, Backend::cpu)->block_steps(), 4);
}

TEST(FdtdBlocked, CpuEngineCpmlInsideThePassGivesTheSplitStepsBits) { expect_cpml_inside_the_pass(Backend::cpu); }

// The share of the cells in CPML slabs, which auto weighs before it takes the blocked sweep with
// CPML: every cell once (corners and edges where slabs meet), over the whole grid on every rank.
TEST(FdtdBlocked, CpmlCellShareCountsEachCellOnce) {
  Model m = fdtd::test::box_model({512, 512, 512}, 0.9);
  for (auto& faces : m.faces) faces = {FaceKind::cpml, FaceKind::cpml};
  m.cpml.thickness = 10;
  const LocalDomain whole = whole_domain(m.cells, {false, false, false});
  EXPECT_NEAR(cpml_cell_share(cpml_slabs(m, whole), whole), 1 - std::pow(492.0 / 512.0, 3), 1e-12);
  m.cells = {40, 24, 36};
  for (auto& faces : m.faces) faces = {FaceKind::pec, FaceKind::pec};
  m.faces[0] = {FaceKind::cpml, FaceKind::pec};
  m.cpml.thickness = 4;
  const LocalDomain small = whole_domain(m.cells, {false, false, false});
  EXPECT_DOUBLE_EQ(cpml_cell_share(cpml_slabs(m, small), small), 0.1);
  // A rank holding none of the slab counts the same share: the grid's.
  LocalDomain part = small;
  part.n = {20, 24, 36};
  part.offset = {20, 0, 0};
  EXPECT_DOUBLE_EQ(cpml_cell_share(cpml_slabs(m, part), part), 0.1);
}
