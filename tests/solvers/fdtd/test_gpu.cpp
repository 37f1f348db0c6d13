// The cuda engine against the cpu reference (gpu label; skipped without a device):
//  - a decomposed run over the ranks (1 GPU, or 2 GPUs through each device transport) with
//    random initial fields, random materials, every boundary kind, sources and probes equals
//    the serial cpu run within the stated tolerance (expected: bit for bit, since both
//    backends evaluate yee.hpp without FMA contraction in the same order);
//  - the seed's launch variants and the generic kernel give the own kernels' bits;
//  - host round trips of fields and psi arrays (what checkpoints use) are exact;
//  - the running DFTs (a box, a plane of 150 frequencies: two launches of the kernel), flux
//    planes and a plane-wave sheet: accumulators and flux spectra equal the cpu run's within
//    the tolerance (expected: bit for bit, float64 sums without contraction on both).
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <random>

#include "comm/cart.hpp"
#include "comm/collectives.hpp"
#include "comm/transport.hpp"
#include "core/error.hpp"
#include "solvers/fdtd/cuda/seed_variants.hpp"
#include "solvers/fdtd/flux.hpp"
#include "tests/solvers/fdtd/fdtd_test_util.hpp"
#include "tests/solvers/fdtd/gpu_test_util.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using namespace tessera::fdtd;
using tessera::test::context;

namespace {

// cuda against cpu: |cuda - cpu| <= kTolerance * max |cpu| over each component.
constexpr double kTolerance = 1e-6;

// `poles`: m1 a Drude metal and m4 a Drude + Lorentz medium (dispersion.hpp).
Model random_model(std::uint64_t seed, bool poles = true) {
  Model m = fdtd::test::box_model({70, 45, 38}, 0.9);
  m.faces[0] = {FaceKind::cpml, FaceKind::pec};
  m.faces[1] = {FaceKind::periodic, FaceKind::periodic};
  m.faces[2] = {FaceKind::pec, FaceKind::cpml};
  m.cpml.thickness = 6;
  m.cpml.kappa_max = 4;
  m.cpml.alpha_max = 0.05;
  std::mt19937_64 rng = tessera::test::rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 6; ++i) m.materials.push_back({"m" + std::to_string(i), 1 + 9 * u(rng), 3 * u(rng), false, {}});
  if (poles) {
    fdtd::test::add_poles(m, 3, false);
    fdtd::test::add_poles(m, 6, true);
  }
  fdtd::test::add_random_shapes(m, rng, 40, 7);
  Waveform w;
  w.kind = WaveformKind::ricker;
  w.frequency = 3e10;
  w.delay = 1.5 / w.frequency;
  for (Index3 c : {Index3{35, 22, 19}, Index3{0, 44, 37}, Index3{69, 0, 0}, Index3{34, 23, 19}})
    m.sources.push_back(fdtd::test::soft_source(static_cast<int>(c[1] % 3), c, w, 1e-2));
  m.sources[2].hard = true;
  for (std::int64_t i = 0; i < 70; i += 9)
    fdtd::test::add_probe(m, "p" + std::to_string(i), {{kEz, {i, (i * 7) % 45, (i * 5) % 38}}, {kHx, {69 - i, i % 45, 3}}});
  if (poles) {  // and a TFSF box (the fused sweep takes neither)
    TfsfSpec t;
    t.box = {{12, 6, 4}, {55, 37, 29}};
    t.axis = 0;
    t.dir = 1;
    t.component = kEz;
    t.waveform = w;
    t.amplitude = 0.5;
    m.tfsf.push_back(t);
  }
  return m;
}

constexpr int kSteps = 40;

struct Result {
  std::vector<std::vector<float>> fields, psi;
  std::vector<float> samples;
  double energy = 0;
};

Result run(Stepper& s, bool collective_energy, int step_count = kSteps) {
  s.engine().fill_random(99);
  for (int n = 0; n < step_count; ++n) s.step();
  Result r;
  for (int c = 0; c < kComponents; ++c) {
    r.fields.emplace_back(static_cast<std::size_t>(s.engine().layout().elements()));
    s.engine().download(c, r.fields.back());
  }
  for (std::size_t sl = 0; sl < s.slabs().size(); ++sl)
    for (int w = 0; w < 4; ++w) {
      r.psi.emplace_back(static_cast<std::size_t>(s.slabs()[sl].local.cells()));
      s.engine().download_psi(static_cast<int>(sl), w, r.psi.back());
    }
  std::vector<std::int64_t> steps;
  r.samples = s.drain_samples(steps);
  const auto e = s.local_energy();
  r.energy = collective_energy ? comm::allreduce(context(), e.electric + e.magnetic, comm::Op::sum) : e.electric + e.magnetic;
  return r;
}

class FdtdGpu : public ::testing::TestWithParam<std::string> {};

using fdtd::test::device_transport;

}  // namespace

TEST_P(FdtdGpu, DecomposedCudaRunMatchesSerialCpu) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  std::string why;
  const auto transport = device_transport(GetParam(), why);
  if (!transport) GTEST_SKIP() << "transport " << GetParam() << " unavailable: " << why;

  // Twice: the materials as painted, then with sub-pixel smoothing (its nodes on rank faces too).
  for (const bool smoothing : {false, true}) {
  SCOPED_TRACE(smoothing ? "smoothing" : "staircase");
  Model m = random_model(3);
  m.smoothing = smoothing;
  auto serial = make_serial_stepper(m);
  const Result ref = run(*serial, false);
  const Layout gl = serial->engine().layout();

  comm::CartDecomposition decomp(ctx, m.cells, {0, 0, 0}, {false, true, false});
  const LocalDomain d = local_domain(decomp);
  auto engine = make_cuda_engine(d, h_coefficients(m));
  auto ghosts = make_halo_ghosts(decomp, *transport, engine->layout());
  Stepper s(m, d, std::move(engine), std::move(ghosts));
  const Result got = run(s, true);
  const Layout ll = s.engine().layout();

  std::int64_t not_identical = 0, values = 0;
  for (int c = 0; c < kComponents; ++c) {
    double scale = 0, worst = 0;
    for (std::int64_t k = 0; k < d.n[2]; ++k)
      for (std::int64_t j = 0; j < d.n[1]; ++j)
        for (std::int64_t i = 0; i < d.n[0]; ++i) {
          const float a = got.fields[c][ll.at(i, j, k)];
          const float b = ref.fields[c][gl.at(i + d.offset[0], j + d.offset[1], k + d.offset[2])];
          scale = std::max(scale, double(std::abs(b)));
          worst = std::max(worst, double(std::abs(a - b)));
          not_identical += std::memcmp(&a, &b, 4) != 0;
          ++values;
        }
    EXPECT_GT(scale, 0.0);
    EXPECT_LE(worst, kTolerance * scale) << kComponentName[c] << " via " << GetParam();
  }
  std::printf("rank %d via %s: %lld of %lld field values not bit-identical to the cpu run\n", ctx.rank(),
              GetParam().c_str(), static_cast<long long>(not_identical), static_cast<long long>(values));

  std::int64_t psi_bad = 0;
  for (std::size_t sl = 0; sl < s.slabs().size(); ++sl) {
    const Box& mb = s.slabs()[sl].local;
    const Box& gb = serial->slabs()[sl].local;
    for (int w = 0; w < 4; ++w)
      for (std::int64_t k = mb.lo[2]; k < mb.hi[2]; ++k)
        for (std::int64_t j = mb.lo[1]; j < mb.hi[1]; ++j)
          for (std::int64_t i = mb.lo[0]; i < mb.hi[0]; ++i) {
            const float a =
                got.psi[sl * 4 + w][((k - mb.lo[2]) * mb.extent(1) + (j - mb.lo[1])) * mb.extent(0) + (i - mb.lo[0])];
            const float b = ref.psi[sl * 4 + w][((k + d.offset[2] - gb.lo[2]) * gb.extent(1) + (j + d.offset[1] - gb.lo[1])) *
                                                    gb.extent(0) +
                                                (i + d.offset[0] - gb.lo[0])];
            psi_bad += std::abs(a - b) > kTolerance * (std::abs(b) + 1e-30f);
          }
  }
  EXPECT_EQ(psi_bad, 0);
  const auto& cols = s.sample_columns();
  const std::size_t w = cols.size(), gw = serial->sample_columns().size();
  for (std::size_t r = 0; r < got.samples.size() / std::max<std::size_t>(w, 1); ++r)
    for (std::size_t c = 0; c < w; ++c) {
      const float a = got.samples[r * w + c], b = ref.samples[r * gw + static_cast<std::size_t>(cols[c])];
      EXPECT_LE(std::abs(a - b), kTolerance * (std::abs(b) + 1e-30f)) << "probe column " << cols[c];
    }
  EXPECT_NEAR(got.energy, ref.energy, 1e-9 * ref.energy);
  }
}

// The fused sweep across ranks: decomposed along each axis in turn (x: a CPML slab that ends
// on the rank boundary, so the next rank's first layer reads corrected H from its ghosts; y:
// periodic, a neighbour on both sides; z: a CPML slab within one rank), with the random
// model's CPML, periodic and PEC faces, materials, sources and probes, then with every axis
// periodic (the axes a rank spans alone wrap inside the sweep): fields, psi, probes and energy
// equal the split step's bit for bit after kSteps steps. One rank: the wraps and the CPML
// repair alone.
TEST_P(FdtdGpu, FusedSweepAcrossRanksGivesTheSplitStepsBits) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  std::string why;
  const auto transport = device_transport(GetParam(), why);
  if (!transport) GTEST_SKIP() << "transport " << GetParam() << " unavailable: " << why;

  for (int variant = 0; variant < 6; ++variant) {
    const int axis = variant % 3;
    const bool periodic = variant >= 3;
    Model m = random_model(21, false);
    if (axis == 0 && ctx.size() > 1) m.cpml.thickness = static_cast<int>(m.cells[0] / ctx.size());
    if (periodic)
      for (auto& faces : m.faces) faces = {FaceKind::periodic, FaceKind::periodic};
    std::array<int, 3> dims{1, 1, 1};
    dims[axis] = ctx.size();
    comm::CartDecomposition decomp(ctx, m.cells, dims, {periodic, true, periodic});
    const LocalDomain d = local_domain(decomp);
    const auto stepper = [&](Sweep sweep) {
      Model mm = m;
      mm.sweep = sweep;
      auto engine = make_cuda_engine(d, h_coefficients(mm));
      auto ghosts = make_halo_ghosts(decomp, *transport, engine->layout());
      return std::make_unique<Stepper>(mm, d, std::move(engine), std::move(ghosts));
    };
    auto fused = stepper(Sweep::fused);
    auto split = stepper(Sweep::split);
    ASSERT_TRUE(fused->fused()) << fused->sweep_reason();
    ASSERT_FALSE(split->fused());
    const Result f = run(*fused, true);
    const Result sp = run(*split, true);
    const Layout l = fused->engine().layout();
    const std::string where = " split along " + std::string(1, char('x' + axis)) +
                              (periodic ? ", every axis periodic" : "") + " via " + GetParam();
    for (int c = 0; c < kComponents; ++c) {
      std::int64_t differ = 0;
      double scale = 0;
      for (std::int64_t k = 0; k < d.n[2]; ++k)
        for (std::int64_t j = 0; j < d.n[1]; ++j)
          for (std::int64_t i = 0; i < d.n[0]; ++i) {
            const std::int64_t at = l.at(i, j, k);
            differ += std::memcmp(&f.fields[c][at], &sp.fields[c][at], 4) != 0;
            scale = std::max(scale, double(std::abs(sp.fields[c][at])));
          }
      EXPECT_GT(scale, 0.0) << kComponentName[c] << where;
      EXPECT_EQ(differ, 0) << kComponentName[c] << " values differ" << where;
    }
    ASSERT_EQ(f.psi.size(), sp.psi.size());
    for (std::size_t p = 0; p < f.psi.size(); ++p) EXPECT_EQ(f.psi[p], sp.psi[p]) << "psi array " << p << where;
    EXPECT_EQ(f.samples, sp.samples) << "probes" << where;
    EXPECT_EQ(f.energy, sp.energy) << "energy" << where;
  }
}

TEST(FdtdGpuSpectra, DftAccumulatorsAndFluxMatchSerialCpu) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  Model m = random_model(6);
  std::mt19937_64 rng = tessera::test::rng(8);
  std::uniform_real_distribution<double> u(1e9, 2e11);
  const auto spectrum = [&](int n, int every) {
    Spectrum sp;
    sp.every = every;
    for (int i = 0; i < n; ++i) sp.frequencies.push_back(u(rng));
    return sp;
  };
  DftSpec box{"box", {kEx, kEy, kEz, kHx, kHy, kHz}, {{5, 3, 2}, {60, 40, 30}}, spectrum(7, 1)};
  DftSpec plane{"plane", {kEz, kHy}, {{0, 0, 20}, {70, 45, 21}}, spectrum(150, 2)};
  m.dfts = {box, plane};
  for (int a = 0; a < 3; ++a) {
    FluxSpec f;
    f.name = "f" + std::to_string(a);
    f.axis = a;
    f.layer = m.cells[a] / 2;
    f.region = {{2, 2, 2}, {m.cells[0] - 2, m.cells[1] - 2, m.cells[2] - 2}};
    f.region.lo[a] = f.layer;
    f.region.hi[a] = f.layer + 1;
    f.spectrum = spectrum(9, 1);
    m.fluxes.push_back(f);
  }
  PlaneWaveSpec w;
  w.axis = 1;  // normal to the periodic y
  w.layer = 11;
  w.component = kEz;
  w.waveform = m.sources.front().waveform;
  w.amplitude = 0.2;
  m.plane_waves.push_back(w);

  auto serial = make_serial_stepper(m);
  serial->engine().fill_random(99);
  for (int n = 0; n < kSteps; ++n) serial->step();
  auto transport = comm::make_transport(ctx, Backend::cuda, "staged").transport;
  comm::CartDecomposition decomp(ctx, m.cells, {0, 0, 0}, {false, true, false});
  const LocalDomain d = local_domain(decomp);
  auto engine = make_cuda_engine(d, h_coefficients(m));
  auto ghosts = make_halo_ghosts(decomp, *transport, engine->layout());
  Stepper s(m, d, std::move(engine), std::move(ghosts));
  s.engine().fill_random(99);
  for (int n = 0; n < kSteps; ++n) s.step();

  std::int64_t values = 0, not_identical = 0, too_far = 0;
  const auto compare = [&](const std::vector<DftMonitor>& mine, const std::vector<DftMonitor>& ref) {
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const std::size_t nf = mine[i].spectrum->frequencies.size();
      for (std::size_t b = 0; b < mine[i].blocks.size(); ++b) {
        const DftBlock& mb = mine[i].blocks[b];
        const DftBlock& gb = ref[i].blocks[b];
        const auto a = Spectra::download(mb, nf, s.engine()), r = Spectra::download(gb, nf, serial->engine());
        double scale = 0;
        for (double v : r) scale = std::max(scale, std::abs(v));
        for (std::size_t row = 0; row < 2 * nf; ++row)
          for (std::int64_t k = mb.global.lo[2]; k < mb.global.hi[2]; ++k)
            for (std::int64_t j = mb.global.lo[1]; j < mb.global.hi[1]; ++j)
              for (std::int64_t i2 = mb.global.lo[0]; i2 < mb.global.hi[0]; ++i2) {
                const auto at = [&](const Box& bx) {
                  return static_cast<std::size_t>(
                      ((std::int64_t(row) * bx.extent(2) + (k - bx.lo[2])) * bx.extent(1) + (j - bx.lo[1])) *
                          bx.extent(0) +
                      (i2 - bx.lo[0]));
                };
                const double x = a[at(mb.global)], y = r[at(gb.global)];
                not_identical += std::memcmp(&x, &y, sizeof x) != 0;
                too_far += std::abs(x - y) > kTolerance * scale;
                ++values;
              }
      }
    }
  };
  compare(s.spectra().dfts(), serial->spectra().dfts());
  compare(s.spectra().fluxes(), serial->spectra().fluxes());
  EXPECT_GT(comm::allreduce(ctx, values, comm::Op::sum), 0);
  EXPECT_EQ(too_far, 0) << "of " << values << " accumulators";
  std::printf("rank %d: %lld of %lld DFT accumulators not bit-identical to the cpu run\n", ctx.rank(),
              static_cast<long long>(not_identical), static_cast<long long>(values));
  for (std::size_t i = 0; i < m.fluxes.size(); ++i) {
    const auto got = flux_spectrum(&ctx, m, i, s.spectra().fluxes()[i], s.engine(), nullptr);
    const auto ref = flux_spectrum(nullptr, m, i, serial->spectra().fluxes()[i], serial->engine(), nullptr);
    for (std::size_t f = 0; f < got.size(); ++f)
      EXPECT_NEAR(got[f], ref[f], kTolerance * std::abs(ref[f])) << "plane " << i << " frequency " << f;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, FdtdGpu, ::testing::Values("staged", "nccl", "mpi"),
                         [](const auto& info) { return info.param; });

TEST(FdtdGpuKernels, SeedVariantsAndGenericKernelGiveTheOwnKernelsBits) {
  TESSERA_REQUIRE_GPU();
  Model m = random_model(4, false);  // the seed variants know no poles
  m.cells = {67, 41, 29};  // not multiples of the block shapes
  m.shapes.resize(10);
  m.sources.clear();
  m.probes.clear();
  const LocalDomain d = whole_domain(m.cells, {false, false, false});
  auto engine = make_cuda_engine(d, h_coefficients(m));
  Stepper s(m, d, std::move(engine), make_local_ghosts(d));
  Engine& e = s.engine();
  const Box all = d.local();
  const auto fields = [&] {
    std::vector<float> out, tmp(static_cast<std::size_t>(e.layout().elements()));
    for (int c = 0; c < kComponents; ++c) {
      e.download(c, tmp);
      out.insert(out.end(), tmp.begin(), tmp.end());
    }
    return out;
  };
  e.fill_random(5);
  for (int n = 0; n < 6; ++n) {
    e.update_h(all);
    e.update_e(all);
  }
  const auto reference = fields();
  const auto variants = seed_variants(m.cells);
  ASSERT_EQ(variants.size(), 4u);
  for (std::size_t v = 0; v < variants.size(); ++v) {
    e.fill_random(5);
    for (int n = 0; n < 6; ++n) run_seed_variant(e, static_cast<int>(v));
    EXPECT_EQ(fields(), reference) << variants[v].name << " " << variants[v].launch;
  }
  e.fill_random(5);
  // The step's shells use the generic kernel; a box split in two gives the same bits too.
  for (int n = 0; n < 6; ++n) {
    Box lower = all, upper = all;
    lower.hi[1] = upper.lo[1] = 17;
    e.update_h(lower);
    e.update_h(upper);
    e.update_e(upper);
    e.update_e(lower);
  }
  EXPECT_EQ(fields(), reference);
}

TEST(FdtdGpuKernels, HostRoundTripsAreExact) {
  TESSERA_REQUIRE_GPU();
  Model m = random_model(6);
  m.faces[1] = {FaceKind::pec, FaceKind::pec};  // one GPU without MPI: no periodic axis
  const LocalDomain dp = whole_domain(m.cells, {false, false, false});
  Stepper s(m, dp, make_cuda_engine(dp, h_coefficients(m)), make_local_ghosts(dp));
  Stepper t(m, dp, make_cuda_engine(dp, h_coefficients(m)), make_local_ghosts(dp));
  s.engine().fill_random(8);
  for (int n = 0; n < 10; ++n) s.step();
  // Copy the state of s into t through the host, then both continue.
  std::vector<float> host(static_cast<std::size_t>(s.engine().layout().elements()));
  for (int c = 0; c < kComponents; ++c) {
    s.engine().download(c, host);
    t.engine().upload(c, host);
  }
  for (std::size_t sl = 0; sl < s.slabs().size(); ++sl)
    for (int w = 0; w < 4; ++w) {
      std::vector<float> psi(static_cast<std::size_t>(s.slabs()[sl].local.cells()));
      s.engine().download_psi(static_cast<int>(sl), w, psi);
      t.engine().upload_psi(static_cast<int>(sl), w, psi);
    }
  // The polarisation currents (J of slots 0 and 1, P of the Lorentz slot 1).
  for (const auto& [slot, which] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{1, 1}})
    for (int c = 0; c < 3; ++c) {
      std::vector<float> pol(static_cast<std::size_t>(s.dispersion_box().cells()));
      s.engine().download_polarisation(slot, which, c, pol);
      t.engine().upload_polarisation(slot, which, c, pol);
    }
  *t.tfsf() = *s.tfsf();  // the 1D incident grid (host state)
  t.set_step(s.steps());
  for (int n = 0; n < 10; ++n) {
    s.step();
    t.step();
  }
  std::vector<float> x(host.size()), y(host.size());
  for (int c = 0; c < kComponents; ++c) {
    s.engine().download(c, x);
    t.engine().download(c, y);
    EXPECT_EQ(x, y) << kComponentName[c];
  }
}

// A Drude metal everywhere (the engines' uniform mode: the dispersive column kernel without the
// material index) and a dispersive sphere in vacuum (the index, the box of the dispersive
// bounds), one rank with PEC walls: cuda against cpu bit for bit over 60 steps, fields and J;
// auto takes the split step and says why, a forced fused sweep is refused.
TEST(FdtdGpuDispersion, CudaMatchesCpuAndRefusesTheFusedSweep) {
  TESSERA_REQUIRE_GPU();
  for (const bool everywhere : {true, false}) {
    Model m = fdtd::test::box_model({48, 40, 36}, 0.9);
    m.materials.push_back({"metal", 2.0, 0.5, false, {}});
    fdtd::test::add_poles(m, 2, !everywhere);
    if (everywhere) {
      m.background = 2;
    } else {
      Shape sphere;
      sphere.kind = ShapeKind::sphere;
      sphere.material = 2;
      sphere.center = {20e-3, 22e-3, 17e-3};
      sphere.radius = 11e-3;
      m.shapes.push_back(sphere);
    }
    const LocalDomain d = whole_domain(m.cells, {false, false, false});
    Stepper gpu(m, d, make_cuda_engine(d, h_coefficients(m)), make_local_ghosts(d));
    Stepper cpu(m, d, make_cpu_engine(d, h_coefficients(m)), make_local_ghosts(d));
    EXPECT_FALSE(gpu.fused());
    EXPECT_NE(gpu.sweep_reason().find("dispersive materials update J between"), std::string::npos)
        << gpu.sweep_reason();
    for (Stepper* s : {&gpu, &cpu}) {
      s->engine().fill_random(31);
      for (int n = 0; n < 60; ++n) s->step();
    }
    std::vector<float> x(static_cast<std::size_t>(cpu.engine().layout().elements())), y(x.size());
    for (int c = 0; c < kComponents; ++c) {
      gpu.engine().download(c, x);
      cpu.engine().download(c, y);
      EXPECT_EQ(x, y) << kComponentName[c] << (everywhere ? " everywhere" : " sphere");
    }
    std::vector<float> jx(static_cast<std::size_t>(cpu.dispersion_box().cells())), jy(jx.size());
    ASSERT_GT(jx.size(), 1000u);
    for (int c = 0; c < 3; ++c) {
      gpu.engine().download_polarisation(0, 0, c, jx);
      cpu.engine().download_polarisation(0, 0, c, jy);
      EXPECT_EQ(jx, jy) << "J0 " << c;
      EXPECT_GT(std::count_if(jy.begin(), jy.end(), [](float v) { return v != 0.0f; }), 1000);
    }
    m.sweep = Sweep::fused;
    try {
      Stepper forced(m, d, make_cuda_engine(d, h_coefficients(m)), make_local_ghosts(d));
      ADD_FAILURE() << "a forced fused sweep with dispersive materials ran";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("dispersive materials update J between"), std::string::npos) << e.what();
    }
  }
}

// The fused sweep (fdtd.sweep = "fused"; cuda, every face a PEC wall) against the split
// kernels and the cpu reference over 100 steps, with random fields, random materials (and a
// uniform one), soft and hard sources and probes: bit for bit. 100 z layers make several z
// stretches, so a stretch's first layer recomputes the H below it; x and y are no multiples
// of the 32 x 8 tile.
TEST(FdtdGpuFused, FusedSweepGivesTheSplitStepsBits) {
  TESSERA_REQUIRE_GPU();
  // Then with sub-pixel smoothing: its nodes are redone after the sweep (smoothing.hpp).
  for (const int variant : {0, 1, 2}) {
    const bool uniform = variant == 1;
    Model m = random_model(11, false);  // the fused sweep has no dispersive materials
    m.cells = {67, 41, 100};
    for (auto& axis : m.faces) axis = {FaceKind::pec, FaceKind::pec};
    if (uniform) m.shapes.clear();
    m.smoothing = variant == 2;
    const LocalDomain d = whole_domain(m.cells, {false, false, false});
    const auto stepper = [&](Backend backend, Sweep sweep) {
      Model mm = m;
      mm.sweep = sweep;
      return std::make_unique<Stepper>(mm, d, make_engine(backend, d, h_coefficients(mm)), make_local_ghosts(d));
    };
    auto fused = stepper(Backend::cuda, Sweep::fused);
    auto split = stepper(Backend::cuda, Sweep::split);
    auto cpu = stepper(Backend::cpu, Sweep::automatic);
    ASSERT_TRUE(fused->fused()) << fused->sweep_reason();
    ASSERT_FALSE(split->fused());
    ASSERT_FALSE(cpu->fused()) << "the cpu engine has no fused sweep";
    std::vector<Result> results;
    for (Stepper* s : {fused.get(), split.get(), cpu.get()}) results.push_back(run(*s, false, 100));
    const char* kind = uniform ? " (uniform)" : m.smoothing ? " (smoothing)" : " (materials)";
    if (m.smoothing) {
      ASSERT_FALSE(fused->node_overrides().empty());
    }
    const Result& f = results[0];
    const Result& sp = results[1];
    const Result& ref = results[2];
    // The split cuda step: the same kernels' arithmetic, so the same bits everywhere.
    for (int c = 0; c < kComponents; ++c) EXPECT_EQ(f.fields[c], sp.fields[c]) << kComponentName[c] << kind;
    EXPECT_EQ(f.samples, sp.samples) << "probes" << kind;
    EXPECT_EQ(f.energy, sp.energy) << "energy" << kind;
    // The cpu reference, as DecomposedCudaRunMatchesSerialCpu compares it.
    for (int c = 0; c < kComponents; ++c) {
      double scale = 0, worst = 0;
      for (std::size_t v = 0; v < f.fields[c].size(); ++v) {
        scale = std::max(scale, double(std::abs(ref.fields[c][v])));
        worst = std::max(worst, double(std::abs(f.fields[c][v] - ref.fields[c][v])));
      }
      EXPECT_GT(scale, 0.0);
      EXPECT_LE(worst, kTolerance * scale) << kComponentName[c] << " fused vs cpu" << kind;
    }
    ASSERT_EQ(f.samples.size(), ref.samples.size());
    for (std::size_t v = 0; v < f.samples.size(); ++v)
      EXPECT_LE(std::abs(f.samples[v] - ref.samples[v]), kTolerance * (std::abs(ref.samples[v]) + 1e-30f));
    EXPECT_NEAR(f.energy, ref.energy, 1e-9 * ref.energy) << kind;
  }
}

// auto takes the fused sweep only where no ghost layer changes within a step; a forced fused
// sweep elsewhere is refused with the reason; fields taken out of a fused run and put into
// another continue bit for bit (what a checkpoint does).
TEST(FdtdGpuFused, AutoChoosesAndRestartsContinue) {
  TESSERA_REQUIRE_GPU();
  Model m = random_model(12, false);
  m.cells = {40, 24, 36};
  for (auto& axis : m.faces) axis = {FaceKind::pec, FaceKind::pec};
  const LocalDomain d = whole_domain(m.cells, {false, false, false});
  const auto make = [&](const Model& mm) {
    return std::make_unique<Stepper>(mm, d, make_cuda_engine(d, h_coefficients(mm)), make_local_ghosts(d));
  };
  auto a = make(m);
  EXPECT_TRUE(a->fused()) << a->sweep_reason();

  Model with_cpml = m;
  with_cpml.faces[2] = {FaceKind::cpml, FaceKind::pec};
  with_cpml.cpml.thickness = 4;
  auto b = make(with_cpml);
  EXPECT_TRUE(b->fused()) << b->sweep_reason();
  EXPECT_NE(b->sweep_reason().find("CPML corrections inside the sweep"), std::string::npos) << b->sweep_reason();
  Model with_poles = m;
  fdtd::test::add_poles(with_poles, 2, false);
  with_poles.background = 2;  // every cell dispersive
  auto c = make(with_poles);
  EXPECT_FALSE(c->fused());
  EXPECT_NE(c->sweep_reason().find("dispersive"), std::string::npos) << c->sweep_reason();
  with_poles.sweep = Sweep::fused;
  EXPECT_THROW(make(with_poles), InputError);

  auto t = make(m);
  a->engine().fill_random(3);
  for (int n = 0; n < 7; ++n) a->step();  // an odd number: the copies have swapped roles
  std::vector<float> host(static_cast<std::size_t>(a->engine().layout().elements()));
  for (int c = 0; c < kComponents; ++c) {
    a->engine().download(c, host);
    t->engine().upload(c, host);
  }
  t->set_step(a->steps());
  for (int n = 0; n < 8; ++n) {
    a->step();
    t->step();
  }
  std::vector<float> x(host.size()), y(host.size());
  for (int c = 0; c < kComponents; ++c) {
    a->engine().download(c, x);
    t->engine().download(c, y);
    EXPECT_EQ(x, y) << kComponentName[c];
  }
}
