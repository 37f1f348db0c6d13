// The fdtd solver under the run loop: outputs (per-step HDF5 files at global size, strided
// planes, the XDMF series), probes.h5 (probe samples and energy), and restart from a
// checkpoint on another rank grid equal to the uninterrupted run bit for bit (the glass sphere is
// dispersive: on 4 ranks one holds only vacuum inside the dispersive bounds, whose checkpoint
// part is zeros).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/run_command.hpp"
#include "comm/collectives.hpp"
#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "solvers/fdtd/solver_info.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using tessera::test::context;

namespace {

// A whole dataset: n = (nx, ny, nz) points, `width` values per point, x fastest.
struct Field {
  io::Index3 n{};
  int width = 1;
  std::vector<float> values;
  float at(std::int64_t i, std::int64_t j, std::int64_t k, int c = 0) const {
    return values[static_cast<std::size_t>(((k * n[1] + j) * n[0] + i) * width + c)];
  }
};

const char* kDeck = R"(
[run]
solver = "fdtd"
steps = 24
backend = "cpu"
status_interval = 1000.0
[output]
every = 12
[diagnostics]
every = 6
[checkpoint]
every = 10
keep = 3
[fdtd]
cells = [12, 10, 8]
cell_size = [1e-3, 1e-3, 2e-3]
courant = 0.95
[fdtd.boundary]
x_low = "cpml"
y_low = "periodic"
y_high = "periodic"
z_high = "cpml"
[fdtd.cpml]
thickness = 3
kappa_max = 2.0
[[fdtd.material]]
name = "glass"
eps_r = 4.0
sigma = 0.5
drude_frequency = [2e10]
drude_damping = [1e9]
lorentz_delta_eps = [1.0]
lorentz_frequency = [3e10]
[[fdtd.geometry]]
shape = "sphere"
material = "glass"
center = [6e-3, 5e-3, 8e-3]
radius = 3e-3
[[fdtd.source]]
position = [5e-3, 5e-3, 7e-3]
component = "Ez"
waveform = "modulated_gaussian"
frequency = 4e10
[[fdtd.source]]
position = [9e-3, 2e-3, 4e-3]
component = "Ex"
type = "hard"
waveform = "continuous"
frequency = 3e10
amplitude = 0.5
[[fdtd.probe]]
name = "centre"
position = [6e-3, 5e-3, 8e-3]
components = "Ex Ey Ez Hx Hy Hz"
[[fdtd.probe]]
name = "edge"
position = [11e-3, 9e-3, 1e-3]
components = "Ez"
[[fdtd.volume]]
name = "fields"
[[fdtd.volume]]
name = "plane"
components = "Ez Hy"
min = [0, 0, 8e-3]
max = [12e-3, 10e-3, 8e-3]
stride = [2, 3, 1]
[[fdtd.volume]]
name = "centred"
collocated = true
)";

struct FdtdRun : ::testing::Test {
  void SetUp() override {
    auto& ctx = context();
    std::string dir = ctx.rank() == 0
                          ? (std::filesystem::temp_directory_path() / fmt::format("tessera_fdtd_{}_{}", getpid(), n++)).string()
                          : std::string();
    comm::broadcast(ctx, dir);
    root = dir;
    if (ctx.rank() == 0) std::filesystem::create_directories(root);
    comm::barrier(ctx);
    registry.add_solver(fdtd::solver_info());
  }
  void TearDown() override {
    comm::barrier(context());
    if (context().rank() == 0) std::filesystem::remove_all(root);
  }

  deck::Deck deck(std::vector<std::string> overrides = {}) {
    const auto path = (root / "deck.toml").string();
    if (context().rank() == 0) std::ofstream(path) << kDeck;
    comm::barrier(context());
    overrides.push_back("run.output_dir=" + (root / "out").string());
    return app::load_run_deck(context(), registry, path, overrides);
  }
  app::RunSummary run(const deck::Deck& d, const std::string& restart = "") {
    app::RunOptions o;
    o.restart = restart;
    o.overwrite = restart.empty();  // the tests rerun fresh runs into one directory
    return app::run_deck(context(), registry, d, o);
  }
  std::filesystem::path out() const { return root / "out"; }

  // Every dataset of a fields file, as read by every rank (whole arrays): (nz, ny, nx) scalars
  // or (nz, ny, nx, 3) vectors.
  std::map<std::string, Field> read_fields(const std::filesystem::path& file, const std::vector<std::string>& names) {
    std::map<std::string, Field> r;
    io::File f = io::File::open(context(), file);
    for (const auto& name : names) {
      const auto ext = io::dataset_extent(f.root(), name);
      EXPECT_TRUE(ext.size() == 3u || (ext.size() == 4u && ext[3] == 3)) << name;
      Field v;
      v.n = {ext[2], ext[1], ext[0]};
      v.width = ext.size() == 4u ? 3 : 1;
      v.values.resize(static_cast<std::size_t>(v.n[0] * v.n[1] * v.n[2] * v.width));
      io::detail::Selection sel;
      for (auto e : ext) {
        sel.global.push_back(static_cast<hsize_t>(e));
        sel.start.push_back(0);
      }
      sel.count = sel.mem_dims = sel.global;
      sel.mem_start = sel.start;
      io::detail::read_selection(f.root(), name, io::ElementType::float32, v.values.data(), v.values.size(), sel);
      r[name] = std::move(v);
    }
    return r;
  }
  std::vector<double> read_series(const std::string& name, std::vector<std::string>* columns = nullptr) {
    io::File f = io::File::open(context(), out() / "probes.h5");
    auto ts = io::TimeSeries::open(f.root(), name);
    if (columns) *columns = ts.columns();
    return ts.read();
  }

  static inline int n = 0;
  std::filesystem::path root;
  app::Registry registry;
};

const std::vector<std::string> kAll{"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
bool bitwise_equal(const Field& a, const Field& b) { return a.n == b.n && bitwise_equal(a.values, b.values); }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_F(FdtdRun, OutputsProbesAndEnergy) {
  // Split along z, so that with 3 or 4 ranks some hold no part of the plane.
  const auto s = run(deck({fmt::format("fdtd.ranks=[1, 1, {}]", context().size())}));
  EXPECT_EQ(s.last_step, 24);
  EXPECT_EQ(s.outputs, 3);  // 0, 12, 24
  const auto full = read_fields(out() / "fields_00000024.h5", kAll);
  // 12 x 10 x 8 cells: each component has its node on the high wall too along the axes where
  // its nodes lie on the walls (x_high pec, y periodic, z_high cpml backed by PEC).
  const std::map<std::string, io::Index3> dims{{"Ex", {12, 11, 9}}, {"Ey", {13, 10, 9}}, {"Ez", {13, 11, 8}},
                                               {"Hx", {13, 10, 8}}, {"Hy", {12, 11, 8}}, {"Hz", {12, 10, 9}}};
  for (const auto& [name, v] : full) EXPECT_EQ(v.n, dims.at(name)) << name;
  const Field &ex = full.at("Ex"), &ey = full.at("Ey"), &ez = full.at("Ez");
  const Field &hx = full.at("Hx"), &hy = full.at("Hy"), &hz = full.at("Hz");
  // The periodic y wall repeats y = 0 (the node comes from the rank holding y = 0); the PEC
  // walls hold tangential E = 0 and normal H = 0.
  std::size_t wrapped = 0, nonzero = 0;
  for (const Field* f : {&ex, &ez, &hy})
    for (std::int64_t k = 0; k < f->n[2]; ++k)
      for (std::int64_t i = 0; i < f->n[0]; ++i) {
        wrapped += same_bits(f->at(i, 10, k), f->at(i, 0, k));
        nonzero += f->at(i, 0, k) != 0;
      }
  EXPECT_EQ(wrapped, std::size_t(12 * 9 + 13 * 8 + 12 * 8));
  EXPECT_GT(nonzero, 0u);
  for (std::int64_t k = 0; k < 8; ++k)
    for (std::int64_t j = 0; j < 10; ++j) {
      EXPECT_EQ(ey.at(12, j, k), 0.0f);
      EXPECT_EQ(ez.at(12, j, k), 0.0f);
      EXPECT_EQ(hx.at(12, j, k), 0.0f);
    }
  for (std::int64_t j = 0; j < 10; ++j)
    for (std::int64_t i = 0; i < 12; ++i) {
      EXPECT_EQ(ex.at(i, j, 8), 0.0f);
      EXPECT_EQ(ey.at(i, j, 8), 0.0f);
      EXPECT_EQ(hz.at(i, j, 8), 0.0f);
    }
  // The strided plane holds every 2nd x (the x = 12 wall node too, for Ez) and 3rd y of layer
  // z = 4 (the cell holding z = 8 mm).
  const auto plane = read_fields(out() / "plane_00000024.h5", {"Ez", "Hy"});
  ASSERT_EQ(plane.at("Ez").n, (io::Index3{7, 4, 1}));
  ASSERT_EQ(plane.at("Hy").n, (io::Index3{6, 4, 1}));
  bool any = false;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 7; ++i) {
      const float p = plane.at("Ez").at(i, j, 0);
      EXPECT_TRUE(same_bits(p, ez.at(2 * i, 3 * j, 4))) << i << "," << j;
      any = any || p != 0;
      if (i < 6) EXPECT_TRUE(same_bits(plane.at("Hy").at(i, j, 0), hy.at(2 * i, 3 * j, 4))) << i << "," << j;
    }
  EXPECT_TRUE(any) << "the plane is all zeros";
  {
    io::File f = io::File::open(context(), out() / "plane_00000012.h5");
    EXPECT_EQ(io::read_attribute<std::int64_t>(f.root(), "step"), 12);
    EXPECT_EQ(io::read_attribute<std::vector<std::int64_t>>(f.root(), "stride"), (std::vector<std::int64_t>{2, 3, 1}));
    // Each dataset says where its element [0, 0, 0] lies and when: Hy at (1/2, 0, 4 + 1/2)
    // cells, half a step before E.
    const io::Dataset hyd = f.root().open_dataset("Hy");
    EXPECT_EQ(io::read_attribute<std::vector<double>>(hyd, "origin"), (std::vector<double>{0.5 * 1e-3, 0.0, 4.5 * 2e-3}));
    EXPECT_EQ(io::read_attribute<std::vector<double>>(hyd, "spacing"), (std::vector<double>{2 * 1e-3, 3 * 1e-3, 1 * 2e-3}));
    EXPECT_DOUBLE_EQ(io::read_attribute<double>(hyd, "time"), io::read_attribute<double>(f.root(), "time_h"));
  }
  // Collocated: E and H at the cell centres, each component the mean of its nodes around the
  // centre (the wall nodes included), with the same float operations as the writer.
  const auto centred = read_fields(out() / "centred_00000024.h5", {"E", "H"});
  const Field &ce = centred.at("E"), &ch = centred.at("H");
  ASSERT_EQ(ce.n, (io::Index3{12, 10, 8}));
  ASSERT_EQ(ce.width, 3);
  ASSERT_EQ(ch.n, (io::Index3{12, 10, 8}));
  std::size_t matches = 0, cells = 0;
  for (std::int64_t k = 0; k < 8; ++k)
    for (std::int64_t j = 0; j < 10; ++j)
      for (std::int64_t i = 0; i < 12; ++i, ++cells) {
        const float e[3] = {
            0.25f * ((ex.at(i, j, k) + ex.at(i, j + 1, k)) + (ex.at(i, j, k + 1) + ex.at(i, j + 1, k + 1))),
            0.25f * ((ey.at(i, j, k) + ey.at(i + 1, j, k)) + (ey.at(i, j, k + 1) + ey.at(i + 1, j, k + 1))),
            0.25f * ((ez.at(i, j, k) + ez.at(i + 1, j, k)) + (ez.at(i, j + 1, k) + ez.at(i + 1, j + 1, k)))};
        const float h[3] = {0.5f * (hx.at(i, j, k) + hx.at(i + 1, j, k)), 0.5f * (hy.at(i, j, k) + hy.at(i, j + 1, k)),
                            0.5f * (hz.at(i, j, k) + hz.at(i, j, k + 1))};
        bool all = true;
        for (int c = 0; c < 3; ++c) all = all && same_bits(ce.at(i, j, k, c), e[c]) && same_bits(ch.at(i, j, k, c), h[c]);
        matches += all;
      }
  EXPECT_EQ(matches, cells);
  // The XDMF series lists the three outputs; a temporal collection per component, each grid
  // with its own points and origin; a file per component.
  if (context().rank() == 0) {
    const auto text = [&](const char* name) {
      std::ifstream in(out() / name);
      std::stringstream t;
      t << in.rdbuf();
      return t.str();
    };
    // A staggered volume: one .xmf per component, none of them all (ParaView's default reader
    // shows a file of several grids as one grey box).
    EXPECT_FALSE(std::filesystem::exists(out() / "plane.xmf"));
    const std::string x = text("plane_Ez.xmf");
    for (const char* file : {"plane_00000000.h5:/Ez", "plane_00000024.h5:/Ez"})
      EXPECT_NE(x.find(file), std::string::npos) << file;
    EXPECT_NE(text("plane_Hy.xmf").find("Dimensions=\"1 4 6\""), std::string::npos);  // Hy
    EXPECT_NE(x.find("Dimensions=\"1 4 7\""), std::string::npos);  // Ez
    EXPECT_NE(x.find(">0.009000000000000001 0 0<"), std::string::npos) << x;  // Ez: z = (4 + 1/2) 2 mm
    const std::string hyx = text("plane_Hy.xmf");
    EXPECT_NE(hyx.find("plane_00000024.h5:/Hy"), std::string::npos);
    EXPECT_EQ(hyx.find("/Ez"), std::string::npos);
    const std::string c = text("centred.xmf");
    EXPECT_NE(c.find("<Attribute Name=\"H\" AttributeType=\"Vector\" Center=\"Node\">"), std::string::npos) << c;
    EXPECT_NE(c.find("Dimensions=\"8 10 12 3\""), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(out() / "centred_E.xmf"));
  }
  // Probes: one row per step, columns named after probe and component.
  std::vector<std::string> cols;
  const auto rows = read_series("probes", &cols);
  ASSERT_EQ(cols.size(), 2u + 6 + 1);
  EXPECT_EQ(cols[2], "centre.Ex");
  EXPECT_EQ(cols.back(), "edge.Ez");
  ASSERT_EQ(rows.size(), 24 * cols.size());
  for (int r = 0; r < 24; ++r) EXPECT_EQ(rows[r * cols.size()], r + 1);
  // The edge probe's last sample is the output's Ez at its node (11, 9, 0 + 1/2) at step 24.
  EXPECT_EQ(rows.back(), double(ez.at(11, 9, 0)));
  EXPECT_NE(rows.back(), 0.0);
  // Energy: rows at the diagnostics steps, positive once the sources have acted.
  const auto energy = read_series("energy");
  ASSERT_EQ(energy.size(), 5u * 5);
  for (int r = 0; r < 5; ++r) EXPECT_EQ(energy[r * 5], 6 * r);
  EXPECT_GT(energy[4 * 5 + 4], 0.0);
  EXPECT_DOUBLE_EQ(energy[4 * 5 + 4], energy[4 * 5 + 2] + energy[4 * 5 + 3]);
}

TEST_F(FdtdRun, RestartOnAnotherRankGridEqualsTheUninterruptedRun) {
  const int p = context().size();
  run(deck({"fdtd.ranks=[0, 0, 0]"}));
  const auto reference = read_fields(out() / "fields_00000024.h5", kAll);
  const auto reference_centred = read_fields(out() / "centred_00000024.h5", {"E", "H"});
  std::vector<std::string> cols;
  const auto probes = read_series("probes", &cols);
  const auto energy = read_series("energy");

  // Continue from step 10 on another rank grid; the interrupted run's rows after step 10 in
  // probes.h5 are dropped, not duplicated.
  const auto d = deck({fmt::format("fdtd.ranks=[1, {}, 1]", p)});
  const auto s = run(d, io::checkpoint_path(out() / "checkpoints", 10).string());
  EXPECT_EQ(s.first_step, 10);
  EXPECT_EQ(s.last_step, 24);
  const auto restarted = read_fields(out() / "fields_00000024.h5", kAll);
  for (const auto& name : kAll) EXPECT_TRUE(bitwise_equal(reference.at(name), restarted.at(name))) << name;
  const auto restarted_centred = read_fields(out() / "centred_00000024.h5", {"E", "H"});
  for (const char* name : {"E", "H"})
    EXPECT_TRUE(bitwise_equal(reference_centred.at(name), restarted_centred.at(name))) << name;
  EXPECT_EQ(read_series("probes"), probes);
  const auto energy2 = read_series("energy");
  ASSERT_EQ(energy2.size(), energy.size());
  for (std::size_t i = 0; i < energy.size(); ++i) EXPECT_NEAR(energy2[i], energy[i], 1e-9 * std::abs(energy[i]) + 1e-30);
  // The XDMF series still lists every output once: 3 times per component.
  if (context().rank() == 0) {
    for (const auto& [file, times] : std::map<std::string, std::size_t>{{"fields_Ex.xmf", 3}, {"fields_Hz.xmf", 3}}) {
      std::ifstream in(out() / file);
      std::stringstream text;
      text << in.rdbuf();
      const std::string x = text.str();
      std::size_t count = 0;
      for (std::size_t at = x.find("<Time "); at != std::string::npos; at = x.find("<Time ", at + 1)) ++count;
      EXPECT_EQ(count, times) << file;
    }
  }
}

// A restart that ends before the earlier run did rewrites one field file; the XDMF index
// still lists every field file on disk (the earlier run's later one too), in step order, once.
TEST_F(FdtdRun, RestartKeepsTheLaterFieldFilesIndexed) {
  run(deck({}));  // fields at steps 0, 12, 24
  const auto s = run(deck({"run.steps=12"}), io::checkpoint_path(out() / "checkpoints", 10).string());
  EXPECT_EQ(s.last_step, 12);
  if (context().rank() != 0) return;
  for (const char* file : {"fields_Ex.xmf", "fields_Hz.xmf"}) {
    std::ifstream in(out() / file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string x = text.str();
    std::size_t previous = 0;
    for (const char* h5 : {"fields_00000000.h5", "fields_00000012.h5", "fields_00000024.h5"}) {
      const std::size_t at = x.find(h5);
      ASSERT_NE(at, std::string::npos) << file << " does not list " << h5 << ":\n" << x;
      EXPECT_GE(at, previous) << file << ": " << h5 << " out of step order";
      previous = at;
    }
    std::size_t times = 0;
    for (std::size_t at = x.find("<Time "); at != std::string::npos; at = x.find("<Time ", at + 1)) ++times;
    EXPECT_EQ(times, 3u) << file;
  }
}

TEST_F(FdtdRun, RestartWithAnotherGridIsRefused) {
  run(deck({"run.steps=10"}));
  const auto d = deck({"fdtd.cells=[12, 10, 9]"});
  try {
    run(d, "latest");
    FAIL() << "restart on another grid accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fdtd.cells = [ 12, 10, 8 ] in the checkpoint, [ 12, 10, 9 ] now"), std::string::npos) << e.what();
  }
}
