// P ranks against one: for every rank grid of P ranks (1D, 2D and, where P allows, 3D), a run
// with random initial fields, random materials (dispersive ones too) and shapes, all boundary
// kinds, a TFSF box, sources and probes on subdomain boundaries gives bit for bit the fields, CPML state and probe samples of
// the serial reference (no MPI, periodic axes wrapped by copying).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "comm/cart.hpp"
#include "comm/collectives.hpp"
#include "comm/transport.hpp"
#include "solvers/fdtd/flux.hpp"
#include "tests/solvers/fdtd/fdtd_test_util.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using namespace tessera::fdtd;
using tessera::test::context;

namespace {

std::vector<std::array<int, 3>> rank_grids(int p) {
  std::vector<std::array<int, 3>> out;
  for (int a = 1; a <= p; ++a)
    for (int b = 1; b <= p; ++b)
      if (p % (a * b) == 0) out.push_back({a, b, p / (a * b)});
  return out;
}

// 13 x 11 x 9 cells: x periodic, y cpml below and pec above, z pec below and cpml above;
// random shapes of random materials; soft and hard sources and probes spread over the grid.
Model random_model(std::uint64_t seed) {
  Model m = fdtd::test::box_model({13, 11, 9}, 0.9);
  m.faces[0] = {FaceKind::periodic, FaceKind::periodic};
  m.faces[1] = {FaceKind::cpml, FaceKind::pec};
  m.faces[2] = {FaceKind::pec, FaceKind::cpml};
  m.cpml.thickness = 3;
  m.cpml.kappa_max = 3;
  m.cpml.alpha_max = 0.1;
  std::mt19937_64 rng = tessera::test::rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 4; ++i) m.materials.push_back({"m" + std::to_string(i), 1 + 7 * u(rng), 2 * u(rng), false, {}});
  // Dispersive materials (dispersion.hpp): m1 a Drude metal, m3 a Drude and a Lorentz pole.
  fdtd::test::add_poles(m, 3, false);
  fdtd::test::add_poles(m, 5, true);
  fdtd::test::add_random_shapes(m, rng, 12, 5, {0.5, 2, 3, {3, 2, 2}});
  Waveform w;
  w.kind = WaveformKind::modulated_gaussian;
  w.frequency = 4e10;
  w.width = 1 / w.frequency;
  w.delay = 2 * w.width;
  for (Index3 c : {Index3{6, 5, 4}, Index3{0, 10, 8}, Index3{12, 0, 0}, Index3{7, 6, 5}}) {
    SourceSpec s = fdtd::test::soft_source(static_cast<int>(c[0] % 3), c, w, 1e-2);
    s.hard = c[0] == 12;
    m.sources.push_back(s);
  }
  m.sources.push_back(fdtd::test::soft_source(kEz, {6, 5, 4}, w, -3e-3));  // a second one on a node
  for (std::int64_t i = 0; i < 13; i += 3)
    fdtd::test::add_probe(m, "p" + std::to_string(i),
                          {{kEx, {i, (i * 7) % 11, (i * 5) % 9}}, {kHz, {12 - i, (i * 3) % 11, (i * 2) % 9}}});
  m.probe_every = 2;
  // A TFSF box across subdomain boundaries (its corrections on whichever rank holds each node).
  TfsfSpec t;
  t.box = {{3, 5, 2}, {9, 8, 4}};
  t.axis = 1;
  t.dir = -1;
  t.component = kEz;
  t.waveform = w;
  t.amplitude = 0.3;
  m.tfsf.push_back(t);
  return m;
}

struct Snapshot {
  std::vector<std::vector<float>> fields, psi, pol;
  std::vector<float> samples;
  std::vector<std::int64_t> sample_steps;
};

constexpr std::uint64_t kFieldSeed = 77;
constexpr int kSteps = 23;

void run(Stepper& s, Snapshot& out) {
  s.engine().fill_random(kFieldSeed);
  for (int n = 0; n < kSteps; ++n) s.step();
  Engine& e = s.engine();
  for (int c = 0; c < kComponents; ++c) {
    out.fields.emplace_back(static_cast<std::size_t>(e.layout().elements()));
    e.download(c, out.fields.back());
  }
  for (std::size_t sl = 0; sl < s.slabs().size(); ++sl)
    for (int w = 0; w < 4; ++w) {
      out.psi.emplace_back(static_cast<std::size_t>(s.slabs()[sl].local.cells()));
      e.download_psi(static_cast<int>(sl), w, out.psi.back());
    }
  // J of both slots, P of slot 1 (the Lorentz pole), per E component.
  for (const auto& [slot, which] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{1, 1}})
    for (int c = 0; c < 3; ++c) {
      out.pol.emplace_back(static_cast<std::size_t>(s.dispersion_box().cells()));
      e.download_polarisation(slot, which, c, out.pol.back());
    }
  out.samples = s.drain_samples(out.sample_steps);
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

// Twice: the materials as painted, then with sub-pixel smoothing (nodes with their own
// coefficients on every side of the rank boundaries, and next to the CPML, PEC and periodic
// faces).
class FdtdDecompositionSmoothing : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Staircase, FdtdDecompositionSmoothing, ::testing::Values(false));
INSTANTIATE_TEST_SUITE_P(Smoothing, FdtdDecompositionSmoothing, ::testing::Values(true));

TEST_P(FdtdDecompositionSmoothing, EveryRankGridMatchesTheSerialRunBitwise) {
  auto& ctx = context();
  Model m = random_model(5);
  m.smoothing = GetParam();
  auto serial = make_serial_stepper(m);
  if (m.smoothing) {
    ASSERT_GT(serial->node_overrides().size(), 100u);
  }
  Snapshot ref;
  run(*serial, ref);
  const Layout gl = serial->engine().layout();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;

  for (const auto& dims : rank_grids(ctx.size())) {
    SCOPED_TRACE(fmt::format("rank grid {}x{}x{}", dims[0], dims[1], dims[2]));
    comm::CartDecomposition decomp(ctx, m.cells, dims, {true, false, false});
    const LocalDomain d = local_domain(decomp);
    Stepper s(m, d, make_cpu_engine(d, h_coefficients(m)), make_halo_ghosts(decomp, *transport, make_layout(d.n)));
    Snapshot mine;
    run(s, mine);
    const Layout ll = s.engine().layout();

    std::int64_t wrong = 0, checked = 0;
    for (int c = 0; c < kComponents; ++c)
      for (std::int64_t k = 0; k < d.n[2]; ++k)
        for (std::int64_t j = 0; j < d.n[1]; ++j)
          for (std::int64_t i = 0; i < d.n[0]; ++i) {
            const float a = mine.fields[c][ll.at(i, j, k)];
            const float b = ref.fields[c][gl.at(i + d.offset[0], j + d.offset[1], k + d.offset[2])];
            wrong += !same_bits(a, b);
            ++checked;
          }
    EXPECT_EQ(wrong, 0) << "of " << checked << " field values";

    // CPML psi: this rank's part of each slab against the same cells of the serial slab.
    ASSERT_EQ(s.slabs().size(), serial->slabs().size());
    std::int64_t psi_wrong = 0, psi_checked = 0;
    for (std::size_t sl = 0; sl < s.slabs().size(); ++sl) {
      const Box& mb = s.slabs()[sl].local;
      const Box& gb = serial->slabs()[sl].local;
      for (int w = 0; w < 4; ++w) {
        const auto& mp = mine.psi[sl * 4 + w];
        const auto& gp = ref.psi[sl * 4 + w];
        for (std::int64_t k = mb.lo[2]; k < mb.hi[2]; ++k)
          for (std::int64_t j = mb.lo[1]; j < mb.hi[1]; ++j)
            for (std::int64_t i = mb.lo[0]; i < mb.hi[0]; ++i) {
              const std::int64_t gi = i + d.offset[0] - gb.lo[0], gj = j + d.offset[1] - gb.lo[1],
                                 gk = k + d.offset[2] - gb.lo[2];
              const float a = mp[((k - mb.lo[2]) * mb.extent(1) + (j - mb.lo[1])) * mb.extent(0) + (i - mb.lo[0])];
              const float b = gp[(gk * gb.extent(1) + gj) * gb.extent(0) + gi];
              psi_wrong += !same_bits(a, b);
              ++psi_checked;
            }
      }
    }
    EXPECT_EQ(psi_wrong, 0) << "of " << psi_checked << " psi values";
    // Every rank's psi cells together cover the slabs exactly once.
    std::int64_t slab_cells = 0;
    for (const auto& sl : serial->slabs()) slab_cells += 4 * sl.local.cells();
    EXPECT_EQ(comm::allreduce(ctx, psi_checked, comm::Op::sum), slab_cells);

    // Polarisation currents: this rank's box of the dispersive bounds against the serial box.
    std::int64_t pol_wrong = 0, pol_checked = 0, pol_nonzero = 0;
    const Box& mb = s.dispersion_box();
    const Box& gb = serial->dispersion_box();
    for (std::size_t a = 0; a < mine.pol.size(); ++a)
      for (std::int64_t k = mb.lo[2]; k < mb.hi[2]; ++k)
        for (std::int64_t j = mb.lo[1]; j < mb.hi[1]; ++j)
          for (std::int64_t i = mb.lo[0]; i < mb.hi[0]; ++i) {
            const std::int64_t gi = i + d.offset[0] - gb.lo[0], gj = j + d.offset[1] - gb.lo[1],
                               gk = k + d.offset[2] - gb.lo[2];
            const float x = mine.pol[a][static_cast<std::size_t>(
                ((k - mb.lo[2]) * mb.extent(1) + (j - mb.lo[1])) * mb.extent(0) + (i - mb.lo[0]))];
            const float y = ref.pol[a][static_cast<std::size_t>((gk * gb.extent(1) + gj) * gb.extent(0) + gi)];
            pol_wrong += !same_bits(x, y);
            pol_nonzero += x != 0.0f;
            ++pol_checked;
          }
    EXPECT_EQ(pol_wrong, 0) << "of " << pol_checked << " J and P values";
    EXPECT_GT(comm::allreduce(ctx, pol_nonzero, comm::Op::sum), 100) << "the dispersive cells carry currents";
    EXPECT_EQ(comm::allreduce(ctx, pol_checked, comm::Op::sum), 9 * gb.cells());

    // Probe samples: same steps, and each local column equals the serial column.
    EXPECT_EQ(mine.sample_steps, ref.sample_steps);
    const auto& cols = s.sample_columns();
    const std::size_t rows = mine.sample_steps.size(), w = cols.size(), gw = serial->sample_columns().size();
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < w; ++c)
        EXPECT_TRUE(same_bits(mine.samples[r * w + c], ref.samples[r * gw + static_cast<std::size_t>(cols[c])]))
            << "row " << r << " column " << cols[c];
    EXPECT_EQ(comm::allreduce(ctx, static_cast<std::int64_t>(w), comm::Op::sum), serial->total_columns());

    // The energy, a reduction, agrees to rounding.
    const auto e_mine = s.local_energy();
    const double total = comm::allreduce(ctx, e_mine.electric + e_mine.magnetic, comm::Op::sum);
    const auto e_ref = serial->local_energy();
    EXPECT_NEAR(total, e_ref.electric + e_ref.magnetic, 1e-9 * std::abs(e_ref.electric + e_ref.magnetic));
  }
}

namespace {

// random_model plus running DFTs: a box of all six components and a plane, sampled every step
// and every 3rd; flux planes normal to each axis, one on the periodic wrap (x = 0: its H below
// is the wrapped layer), one on a layer that rank boundaries cut for some grids; and a current
// sheet normal to the periodic x.
Model spectral_model(std::uint64_t seed) {
  Model m = random_model(seed);
  std::mt19937_64 rng = tessera::test::rng(seed + 1);
  std::uniform_real_distribution<double> u(1e10, 9e10);
  const auto spectrum = [&](int n, int every) {
    Spectrum s;
    s.every = every;
    for (int i = 0; i < n; ++i) s.frequencies.push_back(u(rng));
    return s;
  };
  DftSpec box;
  box.name = "box";
  box.components = {kEx, kEy, kEz, kHx, kHy, kHz};
  box.region = {{2, 1, 2}, {11, 10, 8}};
  box.spectrum = spectrum(5, 1);
  m.dfts.push_back(box);
  DftSpec plane = box;
  plane.name = "plane";
  plane.components = {kHz, kEy};
  plane.region = {{0, 0, 4}, {13, 11, 5}};
  plane.spectrum = spectrum(3, 3);
  m.dfts.push_back(plane);
  const auto flux = [&](int axis, std::int64_t layer, Box region, int every) {
    FluxSpec f;
    f.name = "f" + std::to_string(m.fluxes.size());
    f.axis = axis;
    f.layer = layer;
    region.lo[axis] = layer;
    region.hi[axis] = layer + 1;
    f.region = region;
    f.spectrum = spectrum(4, every);
    f.weight = axis == 1 ? -1 : 1;
    m.fluxes.push_back(f);
  };
  flux(0, 0, {{0, 0, 0}, {13, 11, 9}}, 1);
  flux(0, 6, {{0, 2, 1}, {13, 9, 8}}, 2);
  flux(1, 5, {{1, 0, 0}, {12, 11, 9}}, 1);
  flux(2, 4, {{0, 0, 0}, {13, 11, 9}}, 1);
  PlaneWaveSpec w;
  w.axis = 0;
  w.layer = 4;
  w.component = kEz;
  w.waveform = m.sources.front().waveform;
  w.amplitude = 0.3;
  m.plane_waves.push_back(w);
  return m;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// This rank's accumulators of `mine` against the serial ones at the same global nodes.
std::int64_t differing(const DftBlock& mine, const DftBlock& ref, std::size_t nf, Engine& me, Engine& serial,
                       std::int64_t& checked) {
  const auto a = Spectra::download(mine, nf, me), b = Spectra::download(ref, nf, serial);
  const Box& mb = mine.global;
  const Box& gb = ref.global;
  std::int64_t wrong = 0;
  for (std::size_t d = 0; d < 2 * nf; ++d)
    for (std::int64_t k = mb.lo[2]; k < mb.hi[2]; ++k)
      for (std::int64_t j = mb.lo[1]; j < mb.hi[1]; ++j)
        for (std::int64_t i = mb.lo[0]; i < mb.hi[0]; ++i) {
          const auto at = [&](const Box& b2, std::int64_t row) {
            return static_cast<std::size_t>(
                ((row * b2.extent(2) + (k - b2.lo[2])) * b2.extent(1) + (j - b2.lo[1])) * b2.extent(0) + (i - b2.lo[0]));
          };
          const auto r = static_cast<std::int64_t>(d);
          wrong += !same_bits(a[at(mb, r)], b[at(gb, r)]);
          ++checked;
        }
  return wrong;
}

}  // namespace

// The running DFTs and the flux spectra of P ranks equal the serial run's bit for bit: each
// node's sum is its own, the H below a flux plane comes from the ghost layer with the values
// its owner has, and the flux is an exact sum.
TEST(FdtdDecomposition, SpectraMatchTheSerialRunBitwise) {
  auto& ctx = context();
  const Model m = spectral_model(11);
  auto serial = make_serial_stepper(m);
  serial->engine().fill_random(kFieldSeed);
  for (int n = 0; n < kSteps; ++n) serial->step();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  std::vector<std::vector<double>> ref_flux;
  for (std::size_t i = 0; i < m.fluxes.size(); ++i)
    ref_flux.push_back(flux_spectrum(nullptr, m, i, serial->spectra().fluxes()[i], serial->engine(), nullptr));

  for (const auto& dims : rank_grids(ctx.size())) {
    SCOPED_TRACE(fmt::format("rank grid {}x{}x{}", dims[0], dims[1], dims[2]));
    comm::CartDecomposition decomp(ctx, m.cells, dims, {true, false, false});
    const LocalDomain d = local_domain(decomp);
    Stepper s(m, d, make_cpu_engine(d, h_coefficients(m)), make_halo_ghosts(decomp, *transport, make_layout(d.n)));
    s.engine().fill_random(kFieldSeed);
    for (int n = 0; n < kSteps; ++n) s.step();

    std::int64_t wrong = 0, checked = 0, expected = 0;
    const auto compare = [&](const std::vector<DftMonitor>& mine, const std::vector<DftMonitor>& ref) {
      for (std::size_t i = 0; i < mine.size(); ++i) {
        const std::size_t nf = mine[i].spectrum->frequencies.size();
        for (std::size_t b = 0; b < mine[i].blocks.size(); ++b) {
          wrong += differing(mine[i].blocks[b], ref[i].blocks[b], nf, s.engine(), serial->engine(), checked);
          expected += ref[i].blocks[b].elements(nf);
        }
      }
    };
    compare(s.spectra().dfts(), serial->spectra().dfts());
    compare(s.spectra().fluxes(), serial->spectra().fluxes());
    EXPECT_EQ(wrong, 0) << "of " << checked << " accumulators";
    // The ranks' blocks cover every monitor node once (a flux plane's H below it too).
    EXPECT_EQ(comm::allreduce(ctx, checked, comm::Op::sum), expected);

    for (std::size_t i = 0; i < m.fluxes.size(); ++i) {
      const auto flux = flux_spectrum(&ctx, m, i, s.spectra().fluxes()[i], s.engine(), nullptr);
      ASSERT_EQ(flux.size(), ref_flux[i].size());
      for (std::size_t f = 0; f < flux.size(); ++f) {
        EXPECT_TRUE(same_bits(flux[f], ref_flux[i][f])) << "plane " << i << " frequency " << f << ": " << flux[f]
                                                        << " vs " << ref_flux[i][f];
        EXPECT_NE(flux[f], 0.0);
      }
    }
  }
}

// The exact sum does not depend on the order of its terms (a plain sum of these does).
TEST(FdtdDecomposition, ExactSumIsOrderIndependent) {
  std::mt19937_64 rng = tessera::test::rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> terms(100000);
  for (double& t : terms) t = u(rng) * std::pow(10.0, 8 * u(rng));
  double top = 0;
  for (double t : terms) top = std::max(top, std::abs(t));
  const auto exact = [&](const std::vector<double>& v) {
    std::vector<ExactSum> s{ExactSum(top)};
    for (double t : v) s[0].add(t);
    return ExactSum::allreduce(nullptr, s)[0];
  };
  std::vector<double> shuffled = terms;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  double plain_a = 0, plain_b = 0;
  for (double t : terms) plain_a += t;
  for (double t : shuffled) plain_b += t;
  EXPECT_NE(plain_a, plain_b);  // the order matters to a plain sum of these terms
  EXPECT_TRUE(same_bits(exact(terms), exact(shuffled)));
  long double wide = 0;
  for (double t : terms) wide += t;
  EXPECT_NEAR(exact(terms), double(wide), 1e-12 * std::abs(double(wide)) + 1e-3);
}

// The comparison above can fail: a different seed for the initial fields gives other bits.
// Which ghosts arrive late (and so split the update into interior and shell): only those
// another rank fills. A periodic axis a rank spans alone is wrapped before the update; a wall
// has no ghost to wait for. (Every rank must still take part in an exchange it only sends in.)
TEST(FdtdDecomposition, OnlyGhostsFromAnotherRankArriveLate) {
  auto& ctx = context();
  const int p = ctx.size();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  // x periodic (one rank along it), y a wall, z cut into p ranks and periodic.
  comm::CartDecomposition decomp(ctx, {8, 6, 4 * p}, {1, 1, p}, {true, false, true});
  auto ghosts = make_halo_ghosts(decomp, *transport, make_layout(decomp.local_size()));
  const std::array<bool, 3> late_e = ghosts->filled_late(HalfStep::e_for_h);
  const std::array<bool, 3> late_h = ghosts->filled_late(HalfStep::h_for_e);
  EXPECT_FALSE(late_e[0]);  // x: wrapped on this rank
  EXPECT_FALSE(late_h[0]);
  EXPECT_FALSE(late_e[1]);  // y: walls
  EXPECT_FALSE(late_h[1]);
  EXPECT_EQ(late_e[2], p > 1);  // z: a neighbour on both sides when p > 1, itself when p == 1
  EXPECT_EQ(late_h[2], p > 1);

  // z non-periodic: the top rank's high ghost and the bottom rank's low ghost lie beyond walls.
  comm::CartDecomposition walls(ctx, {8, 6, 4 * p}, {1, 1, p}, {false, false, false});
  auto wall_ghosts = make_halo_ghosts(walls, *transport, make_layout(walls.local_size()));
  const int z = walls.coords()[2];
  EXPECT_EQ(wall_ghosts->filled_late(HalfStep::e_for_h)[2], z < p - 1);
  EXPECT_EQ(wall_ghosts->filled_late(HalfStep::h_for_e)[2], z > 0);
}

// The fused sweep's ghosts (HalfStep::fused): along every axis cut into ranks, E's three
// components in both ghost layers and H's two tangential ones in the low layer hold the
// neighbour's cells, on every rank grid, with periodic axes and with walls. A grid cut along z
// alone sends whole planes (no packing); the others go through the packed halo exchange.
TEST(FdtdDecomposition, FusedGhostsHoldTheNeighboursCells) {
  auto& ctx = context();
  const int p = ctx.size();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  // A random value per component and global cell (a fixed seed): what the owner holds there.
  const auto value = [](int c, std::int64_t i, std::int64_t j, std::int64_t k) {
    std::uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(1 + c + 7 * (i + 131 * (j + 131 * k)));
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return static_cast<float>(double(x >> 40) / double(1 << 24) - 0.5);
  };
  const Index3 cells{3 + p, 2 + p, 4 + p};
  for (const bool periodic : {true, false}) {
    for (const auto& dims : rank_grids(p)) {
      comm::CartDecomposition decomp(ctx, cells, dims, {periodic, periodic, periodic});
      const LocalDomain d = local_domain(decomp);
      Model m = fdtd::test::box_model(cells);
      auto engine = make_cpu_engine(d, h_coefficients(m));
      const Layout l = engine->layout();
      std::vector<float> host(static_cast<std::size_t>(l.elements()));
      for (int c = 0; c < kComponents; ++c) {
        std::fill(host.begin(), host.end(), 0.0f);
        for (std::int64_t k = 0; k < d.n[2]; ++k)
          for (std::int64_t j = 0; j < d.n[1]; ++j)
            for (std::int64_t i = 0; i < d.n[0]; ++i)
              host[static_cast<std::size_t>(l.at(i, j, k))] =
                  value(c, i + d.offset[0], j + d.offset[1], k + d.offset[2]);
        engine->upload(c, host);
      }
      auto ghosts = make_halo_ghosts(decomp, *transport, l);
      ghosts->begin(HalfStep::fused, *engine);
      ghosts->finish(HalfStep::fused, *engine);

      const std::string where = fmt::format("ranks {}x{}x{}{} on rank {}", dims[0], dims[1], dims[2],
                                            periodic ? ", periodic" : ", walls", ctx.rank());
      std::int64_t checked = 0;
      for (int c = 0; c < kComponents; ++c) {
        engine->download(c, host);
        for (int a = 0; a < 3; ++a) {
          if (dims[a] == 1) continue;  // not cut: the sweep wraps or walls it itself
          for (int side = 0; side < 2; ++side) {
            if (decomp.neighbor(a, side) == MPI_PROC_NULL) continue;
            // E both sides; H only its tangential components, only low.
            const bool wanted = c < 3 || (side == 0 && c != 3 + a);
            if (!wanted) continue;
            std::int64_t wrong = 0;
            Box face = d.local();
            face.lo[a] = side == 0 ? -1 : d.n[a];
            face.hi[a] = face.lo[a] + 1;
            for (std::int64_t k = face.lo[2]; k < face.hi[2]; ++k)
              for (std::int64_t j = face.lo[1]; j < face.hi[1]; ++j)
                for (std::int64_t i = face.lo[0]; i < face.hi[0]; ++i) {
                  Index3 g{i + d.offset[0], j + d.offset[1], k + d.offset[2]};
                  g[a] = (g[a] + cells[a]) % cells[a];
                  wrong += host[static_cast<std::size_t>(l.at(i, j, k))] != value(c, g[0], g[1], g[2]);
                  ++checked;
                }
            EXPECT_EQ(wrong, 0) << kComponentName[c] << " in the " << (side == 0 ? "low" : "high") << " "
                                << char('x' + a) << " ghost layer, " << where;
          }
        }
      }
      // Every rank with a cut axis has a neighbour somewhere (two ranks or more on it).
      if (dims[0] * dims[1] * dims[2] > 1 && periodic) {
        EXPECT_GT(checked, 0) << where;
      }
    }
  }
}

TEST(FdtdDecomposition, TheComparisonCanFail) {
  const Model m = random_model(5);
  auto a = make_serial_stepper(m), b = make_serial_stepper(m);
  a->engine().fill_random(1);
  b->engine().fill_random(2);
  for (int n = 0; n < 3; ++n) {
    a->step();
    b->step();
  }
  std::vector<float> x(static_cast<std::size_t>(a->engine().layout().elements())), y(x.size());
  a->engine().download(kEz, x);
  b->engine().download(kEz, y);
  EXPECT_NE(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0);
}

// The fused sweep's CPML repair redoes the E of exactly the cells whose update reads a
// corrected H: each such cell once (disjoint boxes), on every rank grid, and no other cell.
TEST(FdtdDecomposition, CpmlRedoBoxesCoverTheCellsThatReadCorrectedH) {
  auto& ctx = context();
  Model m = random_model(5);
  m.faces[0] = {FaceKind::cpml, FaceKind::cpml};  // and y low, z high from random_model
  for (const auto& dims : rank_grids(ctx.size())) {
    comm::CartDecomposition decomp(ctx, m.cells, dims, {false, false, false});
    const LocalDomain d = local_domain(decomp);
    const auto slabs = cpml_slabs(m, d);
    const auto in_slab = [&](Index3 g) {
      for (const CpmlSlab& s : slabs) {
        bool inside = true;
        for (int a = 0; a < 3; ++a) inside = inside && g[a] >= s.global.lo[a] && g[a] < s.global.hi[a];
        if (inside) return true;
      }
      return false;
    };
    std::vector<int> count(static_cast<std::size_t>(d.local().cells()), 0);
    for (const Box& b : cpml_redo_boxes(slabs, d))
      for (std::int64_t k = b.lo[2]; k < b.hi[2]; ++k)
        for (std::int64_t j = b.lo[1]; j < b.hi[1]; ++j)
          for (std::int64_t i = b.lo[0]; i < b.hi[0]; ++i) {
            ASSERT_TRUE(i >= 0 && j >= 0 && k >= 0 && i < d.n[0] && j < d.n[1] && k < d.n[2]);
            ++count[static_cast<std::size_t>((k * d.n[1] + j) * d.n[0] + i)];
          }
    std::int64_t wrong = 0;
    for (std::int64_t k = 0; k < d.n[2]; ++k)
      for (std::int64_t j = 0; j < d.n[1]; ++j)
        for (std::int64_t i = 0; i < d.n[0]; ++i) {
          const Index3 g{i + d.offset[0], j + d.offset[1], k + d.offset[2]};
          // E at g reads H at g and at -1 along each axis.
          bool reads = in_slab(g);
          for (int a = 0; a < 3; ++a) {
            Index3 below = g;
            --below[a];
            reads = reads || (below[a] >= 0 && in_slab(below));
          }
          wrong += count[static_cast<std::size_t>((k * d.n[1] + j) * d.n[0] + i)] != (reads ? 1 : 0);
        }
    EXPECT_EQ(wrong, 0) << "rank grid " << dims[0] << "x" << dims[1] << "x" << dims[2];
  }
}
