// The bfs solver through the run loop: what bfs.h5 holds (one row per root, trees equal to
// the serial reference, Graph500 statistics), a restart from a checkpoint continuing exactly
// like the uninterrupted run, and deck mistakes reported as input errors naming the key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/run_command.hpp"
#include "comm/collectives.hpp"
#include "core/error.hpp"
#include "io/h5.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/reference.hpp"
#include "solvers/bfs/solver_info.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using tessera::test::context;

namespace {

struct BfsRun : ::testing::Test {
  void SetUp() override {
    auto& ctx = context();
    std::string d = ctx.rank() == 0 ? (std::filesystem::temp_directory_path() /
                                       ("tessera_bfs_solver_" + std::to_string(getpid()) + "_" + std::to_string(counter++)))
                                          .string()
                                    : std::string();
    comm::broadcast(ctx, d);
    root = d;
    if (ctx.rank() == 0) std::filesystem::create_directories(root);
    comm::barrier(ctx);
    registry.add_solver(bfs::solver_info());
  }
  void TearDown() override {
    comm::barrier(context());
    if (context().rank() == 0) std::filesystem::remove_all(root);
  }
  deck::Deck deck(const std::string& bfs_tables, const std::string& run_extra = "") {
    const auto path = (root / "deck.toml").string();
    if (context().rank() == 0) {
      std::ofstream out(path);
      out << "[run]\nsolver = \"bfs\"\nbackend = \"cpu\"\nstatus_interval = 0.001\noutput_dir = \""
          << (root / "out").string() << "\"\n" << run_extra << "\n" << bfs_tables;
    }
    comm::barrier(context());
    return app::load_run_deck(context(), registry, path, {});
  }
  app::RunSummary run(const deck::Deck& d, const std::string& restart = "") {
    app::RunOptions o;
    o.restart = restart;
    o.overwrite = restart.empty();  // the tests rerun fresh runs into one directory
    return app::run_deck(context(), registry, d, o);
  }
  std::filesystem::path output() const { return root / "out" / "bfs.h5"; }

  static inline int counter = 0;
  std::filesystem::path root;
  app::Registry registry;
};

const char* kGraph = "[bfs.graph]\nscale = 9\nedgefactor = 8\nseed = 3\n";

// Columns of /searches that do not depend on timing.
std::vector<double> stable_columns(const io::TimeSeries& s) {
  std::vector<double> out;
  for (const char* c : {"step", "root", "input_edges", "reached", "depth", "validated"}) {
    const auto col = s.read_column(c);
    out.insert(out.end(), col.begin(), col.end());
  }
  return out;
}

}  // namespace

TEST_F(BfsRun, OutputHoldsEveryRootAndItsTree) {
  auto& ctx = context();
  const std::vector<std::int64_t> roots = {3, 77, 300, 3};
  const auto s = run(deck(std::string("[bfs]\nroots = [3, 77, 300, 3]\ntrees = 2\n") + kGraph));
  EXPECT_EQ(s.last_step, 4);
  bfs::KroneckerSpec spec;
  spec.scale = 9;
  spec.edgefactor = 8;
  spec.seed = 3;
  const bfs::KroneckerEdgeSource all(spec, 0, 1);
  std::vector<bfs::Edge> edges(static_cast<std::size_t>(all.local_edges()));
  all.fill(0, edges);
  const bfs::LocalGraph whole = bfs::build_serial_graph(spec.vertices(), edges);

  io::File file = io::File::open(ctx, output());
  const io::TimeSeries series = io::TimeSeries::open(file.root(), "searches");
  ASSERT_EQ(series.rows(), 4);
  const auto root_col = series.read_column("root");
  const auto reached = series.read_column("reached");
  const auto validated = series.read_column("validated");
  const auto teps = series.read_column("teps");
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(root_col[k], static_cast<double>(roots[k]));
    const bfs::BfsTree ref = bfs::serial_bfs(whole, roots[k]);
    EXPECT_EQ(reached[k], std::count_if(ref.level.begin(), ref.level.end(), [](int l) { return l >= 0; }));
    EXPECT_EQ(validated[k], 1.0);
    EXPECT_EQ(teps[k] > 0.0, reached[k] > 1);
    const std::string group = "trees/0000" + std::to_string(k);
    EXPECT_EQ(file.root().exists(group), k < 2) << group;
    if (k < 2) {
      const io::Group g = file.root().open_group(group);
      EXPECT_EQ(io::read_1d<std::int32_t>(g, "level", 0, spec.vertices()), ref.level);
      const auto parent = io::read_1d<std::int64_t>(g, "parent", 0, spec.vertices());
      EXPECT_EQ(parent[roots[k]], roots[k]);
      EXPECT_EQ(io::read_attribute<std::int64_t>(g, "root"), roots[k]);
    }
  }
  const io::Group stats = file.root().open_group("statistics");
  EXPECT_EQ(io::read_attribute<std::int64_t>(stats, "nbfs"), 4);
  EXPECT_GT(io::read_attribute<double>(stats, "harmonic_mean_TEPS"), 0.0);
  EXPECT_EQ(io::read_attribute<std::int64_t>(file.root().open_group("graph"), "vertices"), 512);
}

TEST_F(BfsRun, Graph500ModeDrawsValidatedRoots) {
  auto& ctx = context();
  const auto s = run(deck(std::string("[bfs]\ngraph500 = true\nroot_count = 6\ntrees = 0\nalgorithm = \"top_down\"\n") + kGraph));
  EXPECT_EQ(s.last_step, 6);
  io::File file = io::File::open(ctx, output());
  const io::TimeSeries series = io::TimeSeries::open(file.root(), "searches");
  const auto roots = series.read_column("root");
  EXPECT_EQ(std::set<double>(roots.begin(), roots.end()).size(), 6u);  // distinct
  for (double v : series.read_column("input_edges")) EXPECT_GT(v, 0);  // degree >= 1: some edges
  for (double v : series.read_column("validated")) EXPECT_EQ(v, 1.0);
  EXPECT_FALSE(file.root().exists("trees"));
}

TEST_F(BfsRun, RestartContinuesLikeTheUninterruptedRun) {
  auto& ctx = context();
  const std::string tables = std::string("[bfs]\nroots = [1, 2, 5, 8, 13, 21]\n") + kGraph;
  run(deck(tables));
  std::vector<double> whole;
  std::vector<std::int32_t> last_level;
  {
    io::File file = io::File::open(ctx, output());
    whole = stable_columns(io::TimeSeries::open(file.root(), "searches"));
    last_level = io::read_1d<std::int32_t>(file.root().open_group("trees/00005"), "level", 0, 512);
  }
  // Stop after 3 roots with a checkpoint, then restart from it.
  const auto first = run(deck(tables, "steps = 3\n[checkpoint]\nat_end = true\n"));
  EXPECT_EQ(first.last_step, 3);
  const auto second = run(deck(tables, "[checkpoint]\nat_end = true\n"), "latest");
  EXPECT_EQ(second.first_step, 3);
  EXPECT_EQ(second.last_step, 6);
  io::File file = io::File::open(ctx, output());
  EXPECT_EQ(stable_columns(io::TimeSeries::open(file.root(), "searches")), whole);
  EXPECT_EQ(io::read_1d<std::int32_t>(file.root().open_group("trees/00005"), "level", 0, 512), last_level);
}

TEST_F(BfsRun, DeckMistakesNameTheKey) {
  auto message = [&](const std::string& tables) {
    try {
      run(deck(tables));
    } catch (const InputError& e) {
      return std::string(e.what());
    } catch (const comm::CollectiveError& e) {
      EXPECT_EQ(e.code(), ExitCode::input_error) << e.what();
      return std::string(e.what());
    }
    ADD_FAILURE() << "no input error for: " << tables;
    return std::string();
  };
  EXPECT_NE(message(std::string("[bfs]\nroots = [512]\n") + kGraph).find("bfs.roots"), std::string::npos);
  EXPECT_NE(message(std::string("[bfs]\nroots = [1]\ngraph500 = true\n") + kGraph).find("exclude each other"),
            std::string::npos);
  EXPECT_NE(message(std::string("[bfs]\n") + kGraph).find("bfs.roots"), std::string::npos);
  EXPECT_NE(message("[bfs]\nroots = [0]\n[bfs.graph]\nsource = \"matrix_market\"\nfile = \"/no/such.mtx\"\n")
                .find("does not exist"),
            std::string::npos);
  EXPECT_NE(message(std::string("[bfs]\nroots = [0]\n[bfs.graph]\ninitiator = [0.5, 0.3, 0.3]\n")).find("initiator"),
            std::string::npos);
}
