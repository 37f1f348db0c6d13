// The fdtd solver under the run loop: outputs (per-step HDF5 files at global size, strided
// planes, the XDMF series), probes.h5 (probe samples and energy), and restart from a
// checkpoint on another rank grid equal to the uninterrupted run bit for bit.
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

  // Every dataset of a fields file, as read by every rank (whole arrays).
  std::map<std::string, std::vector<float>> read_fields(const std::filesystem::path& file,
                                                        const std::vector<std::string>& names) {
    std::map<std::string, std::vector<float>> r;
    io::File f = io::File::open(context(), file);
    for (const auto& name : names) {
      const auto ext = io::dataset_extent(f.root(), name);
      EXPECT_EQ(ext.size(), 3u);
      const io::Index3 g{ext[2], ext[1], ext[0]};
      std::vector<float> v(static_cast<std::size_t>(g[0] * g[1] * g[2]));
      io::read_3d<float>(f.root(), name, v, {g, {0, 0, 0}, g}, io::Strided3::dense(g));
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

}  // namespace

TEST_F(FdtdRun, OutputsProbesAndEnergy) {
  // Split along z, so that with 3 or 4 ranks some hold no part of the plane.
  const auto s = run(deck({fmt::format("fdtd.ranks=[1, 1, {}]", context().size())}));
  EXPECT_EQ(s.last_step, 24);
  EXPECT_EQ(s.outputs, 3);  // 0, 12, 24
  const auto full = read_fields(out() / "fields_00000024.h5", kAll);
  for (const auto& [name, v] : full) EXPECT_EQ(v.size(), 12u * 10 * 8) << name;
  // The strided plane holds every 2nd x and 3rd y of layer z = 4 (the cell holding z = 8 mm).
  const auto plane = read_fields(out() / "plane_00000024.h5", {"Ez", "Hy"});
  ASSERT_EQ(plane.at("Ez").size(), 6u * 4 * 1);
  bool any = false;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 6; ++i) {
      const float p = plane.at("Ez")[j * 6 + i];
      const float f = full.at("Ez")[(4 * 10 + 3 * j) * 12 + 2 * i];
      EXPECT_EQ(std::memcmp(&p, &f, 4), 0) << i << "," << j;
      any = any || p != 0;
    }
  EXPECT_TRUE(any) << "the plane is all zeros";
  {
    io::File f = io::File::open(context(), out() / "plane_00000012.h5");
    EXPECT_EQ(io::read_attribute<std::int64_t>(f.root(), "step"), 12);
    EXPECT_EQ(io::read_attribute<std::vector<std::int64_t>>(f.root(), "stride"), (std::vector<std::int64_t>{2, 3, 1}));
  }
  // The XDMF series lists the three outputs with the component origins.
  if (context().rank() == 0) {
    std::ifstream in(out() / "plane.xmf");
    std::stringstream text;
    text << in.rdbuf();
    const std::string x = text.str();
    for (const char* file : {"plane_00000000.h5:/Ez", "plane_00000012.h5:/Hy", "plane_00000024.h5:/Ez"})
      EXPECT_NE(x.find(file), std::string::npos) << file;
    EXPECT_NE(x.find("Dimensions=\"1 4 6\""), std::string::npos);
    EXPECT_NE(x.find(">0.009000000000000001 0 0<"), std::string::npos) << x;  // Ez: z = (4 + 1/2) 2 mm
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
  EXPECT_EQ(rows.back(), double(full.at("Ez")[(0 * 10 + 9) * 12 + 11]));
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
  EXPECT_EQ(read_series("probes"), probes);
  const auto energy2 = read_series("energy");
  ASSERT_EQ(energy2.size(), energy.size());
  for (std::size_t i = 0; i < energy.size(); ++i) EXPECT_NEAR(energy2[i], energy[i], 1e-9 * std::abs(energy[i]) + 1e-30);
  // The XDMF series still lists every output once.
  if (context().rank() == 0) {
    std::ifstream in(out() / "fields.xmf");
    std::stringstream text;
    text << in.rdbuf();
    const std::string x = text.str();
    std::size_t count = 0;
    for (std::size_t at = x.find("<Time "); at != std::string::npos; at = x.find("<Time ", at + 1)) ++count;
    EXPECT_EQ(count, 3u);
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
