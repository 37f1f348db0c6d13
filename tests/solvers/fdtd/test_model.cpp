// The deck -> model translation and its error messages, and the small pure pieces: waveforms,
// CPML profiles, material coefficients, the overlap split, the XDMF text.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/deck/deck.hpp"
#include "core/error.hpp"
#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/cpml.hpp"
#include "solvers/fdtd/materials.hpp"
#include "solvers/fdtd/rank_grid.hpp"
#include "solvers/fdtd/schema.hpp"
#include "solvers/fdtd/solver_info.hpp"
#include "solvers/fdtd/stepper.hpp"
#include "solvers/fdtd/xdmf.hpp"

using namespace tessera;
using namespace tessera::fdtd;

namespace {

Model load(const std::string& text) {
  const deck::Deck d = deck::load_deck(fdtd::schema(), text, "test.toml");
  return params_from_deck(d);
}

// The InputError message of a deck that must be refused.
std::string error_of(const std::string& text) {
  try {
    load(text);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return {};
}

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

}  // namespace

TEST(FdtdModel, DefaultsResolve) {
  const Model m = load("[fdtd]\ncells = [10, 8, 6]\n");
  EXPECT_EQ(m.cells, (Index3{10, 8, 6}));
  EXPECT_DOUBLE_EQ(m.dt, 0.99 * courant_limit(m.cell_size));
  EXPECT_DOUBLE_EQ(courant_limit({1e-3, 1e-3, 1e-3}), 1e-3 / (kC0 * std::sqrt(3.0)));
  for (int a = 0; a < 3; ++a) EXPECT_EQ(m.faces[a][0], FaceKind::pec);
  ASSERT_EQ(m.materials.size(), 2u);
  EXPECT_EQ(m.materials[kPec].name, "pec");
  ASSERT_EQ(m.volumes.size(), 1u);  // the default output: every component, whole grid
  EXPECT_EQ(m.volumes[0].components.size(), 6u);
  EXPECT_EQ(m.volumes[0].region, (Box{{0, 0, 0}, {10, 8, 6}}));
}

// fdtd.block_steps unset: the blocked sweep's measured best, 4 steps a pass, 3 with CPML slabs;
// a value given is kept, CPML or not.
TEST(FdtdModel, BlockStepsUnsetTakesTheMeasuredBest) {
  const Model pec = load("[fdtd]\ncells = [10, 8, 6]\n");
  EXPECT_EQ(pec.block_steps, 0);
  EXPECT_EQ(pec.pass_steps(), 4);
  const std::string cpml =
      "[fdtd]\ncells = [30, 12, 30]\n[fdtd.boundary]\nz_high = \"cpml\"\n[fdtd.cpml]\nthickness = 4\n";
  EXPECT_EQ(load(cpml).pass_steps(), 3);
  const Model given = load("[fdtd]\ncells = [30, 12, 30]\nblock_steps = 2\n[fdtd.boundary]\nx_low = \"cpml\"\n");
  EXPECT_EQ(given.pass_steps(), 2);
  EXPECT_EQ(load("[fdtd]\ncells = [10, 8, 6]\nblock_steps = 3\n").pass_steps(), 3);
}

TEST(FdtdModel, FullDeck) {
  const Model m = load(R"(
[fdtd]
cells = [20, 20, 10]
cell_size = [1e-3, 2e-3, 1e-3]
dt = 1e-12
background = "air"
[fdtd.boundary]
x_low = "periodic"
x_high = "periodic"
z_high = "cpml"
[fdtd.cpml]
thickness = 4
[[fdtd.material]]
name = "air"
[[fdtd.material]]
name = "glass"
eps_r = 2.25
sigma = 0.1
[[fdtd.geometry]]
shape = "sphere"
material = "glass"
center = [10e-3, 20e-3, 5e-3]
radius = 4e-3
[[fdtd.source]]
position = [10.2e-3, 20e-3, 5e-3]
component = "Ey"
type = "hard"
waveform = "ricker"
frequency = 2e10
[[fdtd.probe]]
name = "a"
position = [5e-3, 5e-3, 5e-3]
components = "Ez, Hy"
[[fdtd.volume]]
name = "plane"
components = "Ez"
min = [0, 0, 5e-3]
max = [20e-3, 40e-3, 5e-3]
stride = [2, 2, 1]
)");
  EXPECT_DOUBLE_EQ(m.dt, 1e-12);
  EXPECT_TRUE(m.periodic(0));
  EXPECT_EQ(m.cpml_cells(2, 1), 4);
  EXPECT_EQ(m.cpml_cells(2, 0), 0);
  EXPECT_EQ(m.background, 2);
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_EQ(m.shapes[0].material, 3);
  ASSERT_EQ(m.sources.size(), 1u);
  // Ey nodes sit at (i, j + 1/2, k): x = 10.2 mm -> i = 10, y = 20 mm -> j + 1/2 = 10 -> j = 10 (rounded up).
  EXPECT_EQ(m.sources[0].node.component, kEy);
  EXPECT_EQ(m.sources[0].node.cell, (Index3{10, 10, 5}));
  EXPECT_TRUE(m.sources[0].hard);
  EXPECT_NEAR(m.sources[0].waveform.delay, 1.5 / 2e10, 1e-20);
  ASSERT_EQ(m.probes.size(), 1u);
  ASSERT_EQ(m.probes[0].nodes.size(), 2u);
  EXPECT_EQ(m.probes[0].nodes[1].component, kHy);
  ASSERT_EQ(m.volumes.size(), 1u);
  EXPECT_EQ(m.volumes[0].region, (Box{{0, 0, 5}, {20, 20, 6}}));  // a plane: one cell thick
  EXPECT_EQ(m.volumes[0].samples(), (Index3{10, 10, 1}));
}

TEST(FdtdModel, UnstableTimeStepIsRefusedWithTheLimit) {
  const auto msg = error_of("[fdtd]\ncells = [8, 8, 8]\ncourant = 1.2\n");
  EXPECT_HAS(msg, "test.toml:3");
  EXPECT_HAS(msg, "courant = 1.2 is unstable");
  EXPECT_HAS(msg, fmt::format("{:.6g}", courant_limit({1e-3, 1e-3, 1e-3})));
  const auto msg2 = error_of("[fdtd]\ncells = [8, 8, 8]\ndt = 2e-12\n");
  EXPECT_HAS(msg2, "fdtd.dt = 2e-12 s is unstable");
  EXPECT_HAS(msg2, fmt::format("dt <= {:.6g} s", courant_limit({1e-3, 1e-3, 1e-3})));
}

TEST(FdtdModel, GeometryOutsideTheDomainIsRefused) {
  const auto msg = error_of(
      "[fdtd]\ncells = [10, 10, 10]\n[[fdtd.geometry]]\nshape = \"sphere\"\nmaterial = \"pec\"\n"
      "center = [5e-3, 5e-3, 9e-3]\nradius = 2e-3\n");
  EXPECT_HAS(msg, "fdtd.geometry[0] lies outside the domain");
  EXPECT_HAS(msg, "along z");
  const auto box = error_of(
      "[fdtd]\ncells = [10, 10, 10]\n[[fdtd.geometry]]\nshape = \"box\"\nmaterial = \"pec\"\n"
      "min = [-1e-3, 0, 0]\nmax = [1e-3, 1e-3, 1e-3]\n");
  EXPECT_HAS(box, "along x");
  const auto missing = error_of("[fdtd]\n[[fdtd.geometry]]\nshape = \"cylinder\"\nmaterial = \"pec\"\n"
                                "center = [5e-3, 5e-3, 5e-3]\nradius = 1e-3\n");
  EXPECT_HAS(missing, "needs 'length'");
}

TEST(FdtdModel, UnknownMaterialIsRefusedWithASuggestion) {
  const auto msg = error_of(
      "[fdtd]\n[[fdtd.material]]\nname = \"glass\"\neps_r = 4\n[[fdtd.geometry]]\nshape = \"box\"\n"
      "material = \"glas\"\nmin = [0, 0, 0]\nmax = [1e-3, 1e-3, 1e-3]\n");
  EXPECT_HAS(msg, "test.toml:7");
  EXPECT_HAS(msg, "\"glas\" is not a material");
  EXPECT_HAS(msg, "did you mean 'glass'");
  EXPECT_HAS(error_of("[fdtd]\nbackground = \"water\"\n"), "fdtd.background = \"water\" is not a material");
  EXPECT_HAS(error_of("[fdtd]\n[[fdtd.material]]\nname = \"pec\"\n"), "built in");
}

TEST(FdtdModel, PmlThickerThanTheDomainIsRefused) {
  const auto msg = error_of(
      "[fdtd]\ncells = [30, 12, 30]\n[fdtd.boundary]\ny_low = \"cpml\"\ny_high = \"cpml\"\n[fdtd.cpml]\n"
      "thickness = 6\n");
  EXPECT_HAS(msg, "test.toml:7");
  EXPECT_HAS(msg, "along y take 12 of its 12 cells");
  // One cpml face of 11 cells in 12 is fine.
  EXPECT_NO_THROW(load("[fdtd]\ncells = [30, 12, 30]\n[fdtd.boundary]\ny_low = \"cpml\"\n[fdtd.cpml]\nthickness = 11\n"));
}

TEST(FdtdModel, OtherMistakes) {
  EXPECT_HAS(error_of("[fdtd]\n[fdtd.boundary]\nx_low = \"periodic\"\n"), "needs both faces periodic");
  EXPECT_HAS(error_of("[fdtd]\ncells = [4, 4, 4]\n[[fdtd.source]]\nposition = [1e-3, 5e-3, 1e-3]\n"
                      "waveform = \"gaussian\"\nwidth = 1e-11\n"),
             "lies outside the domain");
  EXPECT_HAS(error_of("[fdtd]\n[[fdtd.source]]\nposition = [1e-3, 1e-3, 1e-3]\nwaveform = \"ricker\"\n"),
             "needs 'frequency'");
  EXPECT_HAS(error_of("[fdtd]\n[[fdtd.probe]]\nposition = [1e-3, 1e-3, 1e-3]\ncomponents = \"Ex Ew\"\n"),
             "unknown field component \"Ew\"");
  EXPECT_HAS(error_of("[fdtd]\n[[fdtd.probe]]\nname = \"a\"\nposition = [1e-3, 1e-3, 1e-3]\n"
                      "[[fdtd.probe]]\nname = \"a\"\nposition = [2e-3, 1e-3, 1e-3]\n"),
             "used twice");
  // A zero-size grid is refused by the schema itself.
  try {
    load("[fdtd]\ncells = [0, 4, 4]\n");
    ADD_FAILURE() << "a zero-size grid was accepted";
  } catch (const InputError& e) {
    EXPECT_HAS(e.what(), "fdtd.cells");
  }
}

TEST(FdtdModel, Waveforms) {
  Waveform g{WaveformKind::gaussian, 0, 1e-11, 4e-11, 0};
  EXPECT_DOUBLE_EQ(g(4e-11), 1.0);
  EXPECT_NEAR(g(5e-11), std::exp(-1.0), 1e-15);
  EXPECT_LT(g(0), 1.2e-7);
  // A Ricker wavelet has no mean: a soft source driven by it leaves no charge behind.
  Waveform r{WaveformKind::ricker, 1e10, 0, 1.5e-10, 0};
  double sum = 0, peak = 0;
  for (int i = 0; i < 4000; ++i) {
    sum += r(i * 1e-13);
    peak = std::max(peak, std::abs(r(i * 1e-13)));
  }
  EXPECT_DOUBLE_EQ(peak, 1.0);
  EXPECT_LT(std::abs(sum) * 1e-13, 1e-6 * 1e-10);
  Waveform cw{WaveformKind::continuous, 1e9, 0, 0, 3e-9};
  EXPECT_EQ(cw(0), 0.0);
  EXPECT_LT(std::abs(cw(1e-10)), 0.02);  // still ramping up
  EXPECT_NEAR(cw(5.25e-9), 1.0, 1e-9);   // fully on: sin at a quarter period
  Waveform mg{WaveformKind::modulated_gaussian, 1e10, 1e-10, 4e-10, 0};
  EXPECT_NEAR(mg(4e-10 + 0.25e-10), std::exp(-0.0625), 1e-12);
}

TEST(FdtdModel, MaterialCoefficients) {
  Model m = load("[fdtd]\n[[fdtd.material]]\nname = \"lossy\"\neps_r = 4\nsigma = 2\n");
  const MaterialTable t = material_table(m);
  EXPECT_EQ(t.coeffs[kVacuum].ca, 1.0f);
  EXPECT_FLOAT_EQ(t.coeffs[kVacuum].cbx, float(m.dt / kEps0 / 1e-3));
  EXPECT_EQ(t.coeffs[kPec].ca, 0.0f);
  EXPECT_EQ(t.coeffs[kPec].cbz, 0.0f);
  const double s = 2 * m.dt / (2 * 4 * kEps0);
  EXPECT_FLOAT_EQ(t.coeffs[2].ca, float((1 - s) / (1 + s)));
  EXPECT_FLOAT_EQ(t.coeffs[2].cby, float(m.dt / (4 * kEps0) / (1 + s) / 1e-3));
  EXPECT_LT(t.coeffs[2].ca, 1.0f);
}

TEST(FdtdModel, CpmlProfileIsGraded) {
  Model m = load("[fdtd]\ncells = [40, 40, 40]\n[fdtd.boundary]\nx_low = \"cpml\"\nx_high = \"cpml\"\n"
                 "[fdtd.cpml]\nthickness = 8\nkappa_max = 5\nalpha_max = 0.05\n");
  const LocalDomain d = whole_domain(m.cells, {false, false, false});
  const auto slabs = cpml_slabs(m, d);
  ASSERT_EQ(slabs.size(), 2u);
  EXPECT_EQ(slabs[0].local, (Box{{0, 0, 0}, {8, 40, 40}}));
  EXPECT_EQ(slabs[1].local, (Box{{32, 0, 0}, {40, 40, 40}}));
  // Low slab: deepest at cell 0, where kappa is largest.
  const auto& lo = slabs[0].profile;
  for (std::size_t i = 1; i < lo.size(); ++i) {
    EXPECT_GT(lo[i].ke, lo[i - 1].ke);
    EXPECT_LT(lo[i].ce, 0.0f);
    EXPECT_GT(lo[i].be, 0.0f);
    EXPECT_LE(lo[i].be, 1.0f);
  }
  EXPECT_NEAR(lo[0].ke, 1.0 / 5 - 1, 1e-6);  // kappa_max at the wall
  // The high slab mirrors the low one: E node depth (g - 32) / 8, H node half a cell further.
  const auto& hi = slabs[1].profile;
  EXPECT_EQ(hi[0].ce, 0.0f);  // E node on the interface
  for (std::size_t i = 1; i < 8; ++i) EXPECT_FLOAT_EQ(hi[i].ce, lo[8 - i].ce);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(hi[i].ch, lo[7 - i].ch);
}

TEST(FdtdModel, OverlapSplitCoversTheBoxOnce) {
  for (int side : {0, 1})
    for (int mask = 0; mask < 8; ++mask) {
      const Index3 n{5, 4, 3};
      const std::array<bool, 3> filled{bool(mask & 1), bool(mask & 2), bool(mask & 4)};
      const SplitBoxes s = split_for_overlap(n, filled, side);
      std::vector<int> hits(60, 0);
      auto mark = [&](const Box& b) {
        for (auto k = b.lo[2]; k < b.hi[2]; ++k)
          for (auto j = b.lo[1]; j < b.hi[1]; ++j)
            for (auto i = b.lo[0]; i < b.hi[0]; ++i) ++hits[(k * 4 + j) * 5 + i];
      };
      mark(s.interior);
      for (const Box& b : s.shell) mark(b);
      for (int h : hits) EXPECT_EQ(h, 1);
      // The interior never touches a filled ghost layer.
      for (int a = 0; a < 3; ++a) {
        if (filled[a]) {
          EXPECT_TRUE(side == 1 ? s.interior.hi[a] <= n[a] - 1 : s.interior.lo[a] >= 1);
        }
      }
    }
}

TEST(FdtdModel, VolumeNodesReachTheHighWalls) {
  // 10 x 8 x 6 cells; the whole grid: each component has one more node along the axes where
  // its nodes lie on the walls (Yee offset 0), the node on the high wall.
  VolumeSpec v{"f", {kEx, kEy, kEz, kHx, kHy, kHz}, {{0, 0, 0}, {10, 8, 6}}, {1, 1, 1}, false, {}};
  const Index3 cells{10, 8, 6};
  EXPECT_EQ(v.samples(), (Index3{10, 8, 6}));
  EXPECT_EQ(v.samples(kEx, cells), (Index3{10, 9, 7}));
  EXPECT_EQ(v.samples(kEy, cells), (Index3{11, 8, 7}));
  EXPECT_EQ(v.samples(kEz, cells), (Index3{11, 9, 6}));
  EXPECT_EQ(v.samples(kHx, cells), (Index3{11, 8, 6}));
  EXPECT_EQ(v.samples(kHy, cells), (Index3{10, 9, 6}));
  EXPECT_EQ(v.samples(kHz, cells), (Index3{10, 8, 7}));
  // A region short of the high wall along x, a plane (one cell thick) at the wall along z, and
  // a stride that lands on the y wall (8 = 2 x 4) ...
  v.region = {{2, 0, 5}, {9, 8, 6}};
  v.stride = {1, 2, 1};
  EXPECT_EQ(v.samples(kEz, cells), (Index3{7, 5, 1}));
  EXPECT_EQ(v.samples(kEx, cells), (Index3{7, 5, 1}));
  // ... or misses it (x: 0 3 6 9, y: 0 3 6; the walls at 10 and 8 are not on the stride).
  v.region = {{0, 0, 0}, {10, 8, 6}};
  v.stride = {3, 3, 1};
  EXPECT_EQ(v.samples(kEz, cells), (Index3{4, 3, 6}));
  v.stride = {5, 4, 3};
  EXPECT_EQ(v.samples(kEz, cells), (Index3{3, 3, 2}));  // x: 0 5 10; y: 0 4 8; z: 0 3
}

TEST(FdtdModel, CollocatedVolumeKey) {
  const Model m = load("[fdtd]\ncells = [10, 8, 6]\n[[fdtd.volume]]\nname = \"c\"\ncollocated = true\n"
                       "[[fdtd.volume]]\nname = \"s\"\ncomponents = \"Ez\"\n");
  ASSERT_EQ(m.volumes.size(), 2u);
  EXPECT_TRUE(m.volumes[0].collocated);
  EXPECT_FALSE(m.volumes[1].collocated);
  EXPECT_FALSE(load("[fdtd]\n").volumes[0].collocated);
  // A name that a staggered volume's per-component XDMF file takes.
  EXPECT_HAS(error_of("[fdtd]\n[[fdtd.volume]]\nname = \"f\"\ncomponents = \"Ez Hx\"\n[[fdtd.volume]]\n"
                      "name = \"f_Hx\"\n"),
             "test.toml:6: field output name \"f_Hx\" is taken by the per-component XDMF file of the output \"f\"");
}

TEST(FdtdModel, XdmfNamesAGridPerComponent) {
  XdmfSeries s;
  s.name = "fields";
  XdmfGrid ex{"Ex", {4, 3, 2}, {2.5e-3, 0, 4e-3}, {1e-3, 2e-3, 4e-3}, {{"Ex", 1}}, {{"time", 0.0}}};
  XdmfGrid hz{"Hz", {4, 4, 3}, {2.5e-3, 1e-3, 4e-3}, {1e-3, 2e-3, 4e-3}, {{"Hz", 1}}, {{"time", -0.5e-12}}};
  s.grids = {ex, hz};
  s.steps = {{0, 0.0, "fields_00000000.h5"}, {10, 1e-11, "fields_00000010.h5"}};
  const std::string x = xdmf_text(s);
  // One temporal collection per component, named after it, holding grids of the same name.
  EXPECT_HAS(x, "<Grid Name=\"Ex\" GridType=\"Collection\" CollectionType=\"Temporal\">\n   <Grid Name=\"Ex\" "
                "GridType=\"Uniform\">\n    <Time Value=\"0\"/>");
  EXPECT_HAS(x, "<Grid Name=\"Hz\" GridType=\"Collection\" CollectionType=\"Temporal\">\n   <Grid Name=\"Hz\" "
                "GridType=\"Uniform\">\n    <Time Value=\"0\"/>");
  EXPECT_EQ(x.find("Spatial"), std::string::npos);
  // Each grid its own points and origin (listed z y x), every grid under the output time...
  EXPECT_HAS(x, "Dimensions=\"2 3 4\"");
  EXPECT_HAS(x, "Dimensions=\"3 4 4\"");
  EXPECT_HAS(x, ">0.004 0 0.0025<");
  EXPECT_HAS(x, ">0.004 0.001 0.0025<");
  EXPECT_HAS(x, "<Time Value=\"1e-11\"/>");
  EXPECT_HAS(x, "fields_00000010.h5:/Hz");
  // ... and its own time and the step as field data.
  EXPECT_HAS(x, "<Attribute Name=\"time\" AttributeType=\"Scalar\" Center=\"Grid\">\n     <DataItem Dimensions=\"1\" "
                "NumberType=\"Float\" Precision=\"8\" Format=\"XML\">9.5e-12</DataItem>");
  EXPECT_HAS(x, "NumberType=\"Int\" Precision=\"8\" Format=\"XML\">10</DataItem>");
  // The per-grid file: H under its own times.
  const std::string h = xdmf_grid_text(s, 1);
  EXPECT_HAS(h, "<Time Value=\"-5e-13\"/>");
  EXPECT_HAS(h, "<Time Value=\"9.5e-12\"/>");
  EXPECT_EQ(h.find("\"Ex\""), std::string::npos);
  EXPECT_HAS(xdmf_grid_text(s, 0), "<Time Value=\"1e-11\"/>");
  // A collocated grid: vectors (nz, ny, nx, 3).
  s.grids = {{"c", {4, 3, 2}, {0, 0, 0}, {1, 1, 1}, {{"E", 3}, {"H", 3}}, {{"time", 0.0}, {"time_h", -0.5e-12}}}};
  const std::string c = xdmf_text(s);
  EXPECT_HAS(c, "<Attribute Name=\"E\" AttributeType=\"Vector\" Center=\"Node\">\n     <DataItem Dimensions=\"2 3 4 3\"");
  EXPECT_HAS(c, "fields_00000010.h5:/H</DataItem>");
  EXPECT_HAS(c, "<Attribute Name=\"time_h\"");
}

// Spectral monitors and plane waves: frequencies from a list or a range, the region's cells, a
// flux plane on its E-node layer (wrapped on a periodic axis), a sheet's layer; and the
// refusals with the key's line (Nyquist names the largest `every` that would do).
TEST(FdtdModel, SpectraAndPlaneWaves) {
  const std::string head = "[fdtd]\ncells = [20, 10, 8]\n[fdtd.boundary]\n"
                           "z_low = \"periodic\"\nz_high = \"periodic\"\n";
  const Model m = load(head + R"(
[[fdtd.dft]]
name = "d"
components = "Ez Hy"
min = [2.2e-3, 0, 3e-3]
max = [7.5e-3, 10e-3, 3e-3]
fmin = 1e10
fmax = 3e10
nfreq = 5
every = 3
[[fdtd.flux]]
name = "f"
min = [0, 0, 8e-3]
max = [20e-3, 10e-3, 8e-3]
frequencies = [2e10, 4e10]
weight = -1
[[fdtd.flux]]
name = "g"
min = [12.4e-3, 1e-3, 1e-3]
max = [12.4e-3, 9e-3, 7e-3]
frequencies = [1e10]
[[fdtd.plane_wave]]
axis = "x"
position = 4.6e-3
component = "Ey"
waveform = "ricker"
frequency = 2e10
amplitude = 3
)");
  ASSERT_EQ(m.dfts.size(), 1u);
  EXPECT_EQ(m.dfts[0].components, (std::vector<int>{kEz, kHy}));
  EXPECT_EQ(m.dfts[0].region, (Box{{2, 0, 3}, {8, 10, 4}}));
  EXPECT_EQ(m.dfts[0].spectrum.every, 3);
  EXPECT_EQ(m.dfts[0].spectrum.frequencies, (std::vector<double>{1e10, 1.5e10, 2e10, 2.5e10, 3e10}));
  ASSERT_EQ(m.fluxes.size(), 2u);
  EXPECT_EQ(m.fluxes[0].axis, 2);
  EXPECT_EQ(m.fluxes[0].layer, 0);  // z = 8 mm of a periodic 8-cell axis: the wrap
  EXPECT_EQ(m.fluxes[0].region, (Box{{0, 0, 0}, {20, 10, 1}}));
  EXPECT_EQ(m.fluxes[0].weight, -1);
  EXPECT_EQ(m.fluxes[1].axis, 0);
  EXPECT_EQ(m.fluxes[1].layer, 12);  // nearest E-node layer to 12.4 mm
  EXPECT_EQ(m.fluxes[1].region, (Box{{12, 1, 1}, {13, 9, 7}}));
  ASSERT_EQ(m.plane_waves.size(), 1u);
  EXPECT_EQ(m.plane_waves[0].axis, 0);
  EXPECT_EQ(m.plane_waves[0].layer, 5);
  EXPECT_EQ(m.plane_waves[0].component, kEy);
  EXPECT_EQ(m.plane_waves[0].amplitude, 3);

  // dt = 0.99 / (c sqrt(3)) mm = 1.90658e-12 s: Nyquist 2.6e11 Hz every step, 8.7e10 every 3.
  EXPECT_HAS(error_of(head + "[[fdtd.dft]]\nname = \"d\"\nfrequencies = [1e10, 9e10]\nevery = 3\n"),
             "test.toml:8: fdtd.dft[0] asks for 9e+10 Hz, above the Nyquist limit 8.74");
  EXPECT_HAS(error_of(head + "[[fdtd.dft]]\nname = \"d\"\nfrequencies = [1e10, 9e10]\nevery = 3\n"), "at most 2 for");
  EXPECT_HAS(error_of(head + "[[fdtd.dft]]\nname = \"d\"\nfmin = 1e9\nfmax = 2e9\n"),
             "test.toml:6: fdtd.dft[0] gives a frequency range and needs 'fmin', 'fmax' and 'nfreq' (missing 'nfreq')");
  EXPECT_HAS(error_of(head + "[[fdtd.dft]]\nname = \"d\"\nfrequencies = [1e9]\nmin = [0, 0, 0]\nmax = [1e-3, 1e-3, 9e-3]\n"),
             "test.toml:10: fdtd.dft[0].max 0.009 m along z lies outside the domain 0 .. 0.008 m");
  EXPECT_HAS(error_of(head + "[[fdtd.dft]]\nname = \"a b\"\nfrequencies = [1e9]\n"), "must be non-empty without spaces");
  EXPECT_HAS(error_of(head + "[[fdtd.flux]]\nname = \"f\"\nmin = [0, 0, 0]\nmax = [20e-3, 10e-3, 4e-3]\n"
                             "frequencies = [1e9]\n"),
             "must be a plane: min and max equal along exactly one axis (its normal), they are equal along 0 axes");
  EXPECT_HAS(error_of(head + "[[fdtd.flux]]\nname = \"f\"\nmin = [0.2e-3, 0, 0]\nmax = [0.2e-3, 10e-3, 8e-3]\n"
                             "frequencies = [1e9]\n"),
             "lies on the low wall of the domain along x");
  EXPECT_HAS(error_of(head + "[[fdtd.plane_wave]]\nposition = 3e-3\ncomponent = \"Ez\"\nfrequency = 1e9\n"),
             "test.toml:8: fdtd.plane_wave[0].component Ez is normal to the sheet (axis z)");
  EXPECT_HAS(error_of(head + "[[fdtd.plane_wave]]\naxis = \"x\"\ncomponent = \"Ey\"\nposition = 20e-3\nfrequency = 1e9\n"),
             "lies on a wall along x");
}

// The memory estimate a run is refused with before it starts (solver_info.cpp) counts what the
// running DFTs and the poles allocate, shared by the ranks: here a 32^3 grid of 1 mm cells on 2
// ranks, on the cpu backend (all on the host) and on cuda (the engine's arrays on the GPU).
TEST(FdtdModel, MemoryEstimateCountsDftsAndPoles) {
  const double cells = 32 * 32 * 32, ranks = 2;
  const std::string grid32 = "[fdtd]\ncells = [32, 32, 32]\n";
  const auto need = [&](const std::string& fdtd, const std::string& tables, Backend backend) {
    const deck::Deck d = deck::load_deck(fdtd::schema(), fdtd + tables, "test.toml");
    return fdtd::solver_info().memory(d, backend)->per_rank(ranks);
  };
  const comm::MemoryNeed grid = need(grid32, "", Backend::cpu), grid_gpu = need(grid32, "", Backend::cuda);
  EXPECT_DOUBLE_EQ(grid.host_bytes, cells * 25 / ranks);  // six float fields and a material index
  EXPECT_DOUBLE_EQ(grid_gpu.device_bytes, cells * 25 / ranks);
  EXPECT_DOUBLE_EQ(grid_gpu.host_bytes, cells / ranks);  // the material map it uploads

  // Ex and Hy over the plane z = 16 mm (1024 nodes each) at 10 frequencies: float64 re and im
  // per node and frequency; on cuda also a batch of 32 steps of float samples per node.
  const std::string dft = R"(
[[fdtd.dft]]
name = "plane"
components = "Ex Hy"
min = [0, 0, 16e-3]
max = [32e-3, 32e-3, 16e-3]
fmin = 1e9
fmax = 1e10
nfreq = 10
)";
  const double dft_acc = 2 * 1024 * 10 * 16.0, dft_samples = 2 * 1024 * 32 * 4.0;
  EXPECT_DOUBLE_EQ(need(grid32, dft, Backend::cpu).host_bytes - grid.host_bytes, dft_acc / ranks);
  const comm::MemoryNeed dft_gpu = need(grid32, dft, Backend::cuda);
  EXPECT_DOUBLE_EQ(dft_gpu.device_bytes - grid_gpu.device_bytes, (dft_acc + dft_samples) / ranks);
  EXPECT_DOUBLE_EQ(dft_gpu.host_bytes, grid_gpu.host_bytes);

  // A flux plane: E_p and E_q on it, H_p and H_q on the layers either side (6 x 1024 nodes), at
  // 4 frequencies; the empty run's accumulators it subtracts are read onto the host as well.
  const std::string flux = R"(
[[fdtd.flux]]
name = "refl"
min = [0, 0, 16e-3]
max = [32e-3, 32e-3, 16e-3]
frequencies = [1e9, 2e9, 3e9, 4e9]
subtract = "empty/flux.h5"
)";
  const double flux_acc = 6 * 1024 * 4 * 16.0, flux_samples = 6 * 1024 * 32 * 4.0;
  EXPECT_DOUBLE_EQ(need(grid32, flux, Backend::cpu).host_bytes - grid.host_bytes, 2 * flux_acc / ranks);
  const comm::MemoryNeed flux_gpu = need(grid32, flux, Backend::cuda);
  EXPECT_DOUBLE_EQ(flux_gpu.device_bytes - grid_gpu.device_bytes, (flux_acc + flux_samples) / ranks);
  EXPECT_DOUBLE_EQ(flux_gpu.host_bytes - grid_gpu.host_bytes, flux_acc / ranks);

  // A volume of 2^21 nodes: 32 steps of it fill the 256 MiB sample buffer of one rank, but
  // split over ranks as it may be, a batch of whole steps is only sure to fill half of it.
  const double big = 128.0 * 128 * 128;
  EXPECT_DOUBLE_EQ(need("[fdtd]\ncells = [128, 128, 128]\n",
                        "[[fdtd.dft]]\nname = \"v\"\ncomponents = \"Ez\"\nfrequencies = [1e9]\n", Backend::cuda)
                       .device_bytes,
                   (big * 25 + big * 16 + (1 << 27)) / ranks);

  // Poles: J (12 bytes per cell) per Drude pole, J and P (24) per Lorentz pole, over the box of
  // cells the dispersive shapes can cover: a box shape over 8 .. 16 mm covers cells 6 to 16 (its
  // bounds widened by a cell each way), 11^3 cells; a dispersive background, the whole grid.
  const std::string metal = R"(
[[fdtd.material]]
name = "metal"
drude_frequency = [1e9]
lorentz_delta_eps = [1.0]
lorentz_frequency = [1e10]
)";
  const std::string shape = metal + R"(
[[fdtd.geometry]]
shape = "box"
material = "metal"
min = [8e-3, 8e-3, 8e-3]
max = [16e-3, 16e-3, 16e-3]
)";
  const double pole_bytes = 12 + 24;
  EXPECT_DOUBLE_EQ(need(grid32, shape, Backend::cpu).host_bytes - grid.host_bytes, 11 * 11 * 11 * pole_bytes / ranks);
  EXPECT_DOUBLE_EQ(need(grid32, shape, Backend::cuda).device_bytes - grid_gpu.device_bytes,
                   11 * 11 * 11 * pole_bytes / ranks);
  EXPECT_DOUBLE_EQ(need(grid32 + "background = \"metal\"\n", metal, Backend::cpu).host_bytes - grid.host_bytes,
                   cells * pole_bytes / ranks);
}

// The rank grid without fdtd.ranks: z cut for a forced blocked sweep, and on a GPU with up to
// 4 ranks where z is the longest axis; MPI_Dims_create's grid ({0, 0, 0}) otherwise.
TEST(FdtdModel, DefaultRankGridCutsZWhereTheSweepsGainFromIt) {
  const Model cube = load("[fdtd]\ncells = [64, 64, 64]\n");
  const std::array<int, 3> dims_create{0, 0, 0};
  EXPECT_EQ(default_rank_grid(cube, 4, Backend::cuda), (std::array<int, 3>{1, 1, 4}));
  EXPECT_EQ(default_rank_grid(cube, 2, Backend::cuda), (std::array<int, 3>{1, 1, 2}));
  EXPECT_EQ(default_rank_grid(cube, 1, Backend::cuda), dims_create);
  EXPECT_EQ(default_rank_grid(cube, 8, Backend::cuda), dims_create);  // not measured beyond 4
  EXPECT_EQ(default_rank_grid(cube, 4, Backend::cpu), dims_create);   // no fused sweep there
  // A thin slab in z: its z faces are the largest, so another cut sends less.
  const Model slab = load("[fdtd]\ncells = [64, 64, 32]\n");
  EXPECT_EQ(default_rank_grid(slab, 4, Backend::cuda), dims_create);
  // The split step gains nothing from a z cut.
  const Model split = load("[fdtd]\ncells = [64, 64, 64]\nsweep = \"split\"\n");
  EXPECT_EQ(default_rank_grid(split, 2, Backend::cuda), dims_create);
  // A forced blocked sweep: z whatever the backend or rank count, where each rank holds a pass.
  const Model blocked = load("[fdtd]\ncells = [64, 64, 32]\nsweep = \"blocked\"\n");
  EXPECT_EQ(default_rank_grid(blocked, 8, Backend::cpu), (std::array<int, 3>{1, 1, 8}));
  EXPECT_EQ(default_rank_grid(blocked, 16, Backend::cuda), dims_create);  // 2 layers < block_steps
  // A grid the deck gives is kept.
  const Model given = load("[fdtd]\ncells = [64, 64, 64]\nranks = [2, 2, 1]\n");
  EXPECT_EQ(default_rank_grid(given, 4, Backend::cuda), (std::array<int, 3>{2, 2, 1}));
}
