// The scan solver end to end through the run loop on 1..4 ranks: the output file equals the
// serial scan of the generated or file input (bitwise for integers), restart equals the
// uninterrupted run, a restart with another input is refused, and bad decks and inputs raise
// InputErrors that name the deck key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/run_command.hpp"
#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "io/h5.hpp"
#include "solvers/scan/cpu/cpu_scan.hpp"
#include "solvers/scan/generate.hpp"
#include "solvers/scan/solver_info.hpp"
#include "tests/solvers/scan/scan_test_util.hpp"
#include "tests/support/mpi_test.hpp"
#include "tests/support/temp_dir.hpp"

namespace tessera::scan::test {
namespace {

using tessera::test::context;

struct ScanSolverTest : ::testing::Test {
  void SetUp() override {
    registry.add_solver(solver_info());
  }

  deck::Deck deck(const std::string& scan_tables, const std::vector<std::string>& overrides = {},
                  const std::string& name = "out") {
    const auto path = (root / "deck.toml").string();
    if (context().rank() == 0) {
      std::ofstream out(path);
      out << "[run]\nsolver = \"scan\"\nsteps = 2\nbackend = \"cpu\"\noutput_dir = \"" << (root / name).string()
          << "\"\nstatus_interval = 100\n\n" << scan_tables;
    }
    comm::barrier(context());
    return app::load_run_deck(context(), registry, path, overrides);
  }

  app::RunSummary run(const deck::Deck& d, const std::string& restart = "") {
    app::RunOptions opt;
    opt.restart = restart;
    opt.overwrite = restart.empty();  // the tests rerun fresh runs into one directory
    return app::run_deck(context(), registry, d, opt);
  }

  template <class T>
  std::vector<T> read_all(const std::filesystem::path& file, const std::string& name) {
    const io::File f = io::File::open(context(), file);
    const auto n = io::dataset_extent(f.root(), name).at(0);
    return io::read_1d<T>(f.root(), name, 0, n);
  }

  // Runs f, expecting a user error (an InputError, or one agreed over the ranks with the input
  // error's exit code) whose message contains `part`.
  template <class F>
  void expect_input_error(F&& f, const std::string& part) {
    try {
      f();
      ADD_FAILURE() << "expected an input error containing '" << part << "'";
    } catch (const comm::CollectiveError& e) {
      EXPECT_EQ(e.code(), ExitCode::input_error) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }

  tessera::test::SharedTempDir scratch{"tessera_scan"};  // collective; removed after each test
  const std::filesystem::path root = scratch.path();
  app::Registry registry;
};

TEST_F(ScanSolverTest, GeneratedInputEqualsTheSerialScan) {
  const std::int64_t n = 100003;
  const auto s = run(deck(fmt::format("[scan]\naccumulate = \"int64\"\nmode = \"exclusive\"\nverify = \"full\"\n"
                                      "write_input = true\n[scan.input]\nlength = {}\nseed = 9\nlow = -2000000000\n"
                                      "high = 2000000000\n",
                                      n)));
  EXPECT_EQ(s.last_step, 2);
  std::vector<std::int32_t> in(n);
  Generator g;
  g.seed = 9;
  g.low = -2000000000;
  g.high = 2000000000;
  generate_values(in.data(), n, 0, g);
  std::vector<std::int64_t> expected(n);
  serial_scan(in.data(), expected.data(), n, Mode::exclusive, 0);
  const auto file = root / "out" / "scan.h5";
  EXPECT_EQ(read_all<std::int32_t>(file, "input"), in);
  EXPECT_EQ(read_all<std::int64_t>(file, "scan"), expected);
  const io::File f = io::File::open(context(), file);
  const io::Group r = f.root();
  EXPECT_EQ(io::read_attribute<std::string>(r, "mode"), "exclusive");
  EXPECT_EQ(io::read_attribute<std::string>(r, "type"), "int32");
  EXPECT_EQ(io::read_attribute<std::string>(r, "accumulate"), "int64");
  EXPECT_EQ(io::read_attribute<std::string>(r, "variant"), "cpu");
  EXPECT_EQ(io::read_attribute<std::int64_t>(r, "length"), n);
  EXPECT_EQ(io::read_attribute<std::int64_t>(r, "steps"), 2);
  EXPECT_EQ(io::read_attribute<int>(r, "ranks"), context().size());
  EXPECT_NE(io::read_attribute<std::string>(r, "deck").find("solver = \"scan\""), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(root / "out" / "scan.h5.tmp"));
}

TEST_F(ScanSolverTest, FileInputOfEveryTypeEqualsTheSerialScan) {
  const std::int64_t n = 30011;
  const auto file = root / "input.h5";
  const Range mine = block_range(n, context().size(), context().rank());
  const auto f64 = random_input<double>(n, 3);
  const auto i64 = random_input<std::int64_t>(n, 4, std::int64_t{1} << 40);
  {
    io::File f = io::File::create(context(), file);
    const io::Group r = f.root();
    io::write_1d<double>(r, "f64", std::span(f64).subspan(mine.begin, mine.count), mine.begin, n);
    io::write_1d<std::int64_t>(r, "data/i64", std::span(i64).subspan(mine.begin, mine.count), mine.begin, n);
  }
  comm::barrier(context());
  run(deck(fmt::format("[scan]\nverify = \"full\"\nvariant = \"cpu-serial\"\n[scan.input]\nsource = \"file\"\n"
                       "file = \"{}\"\ndataset = \"/data/i64\"\nlength = {}\n",
                       file.string(), n)));
  std::vector<std::int64_t> expected(n);
  serial_scan(i64.data(), expected.data(), n, Mode::inclusive, 0);
  EXPECT_EQ(read_all<std::int64_t>(root / "out" / "scan.h5", "scan"), expected);

  run(deck(fmt::format("[scan]\nverify = \"full\"\nmode = \"exclusive\"\ntype = \"float64\"\n[scan.input]\n"
                       "source = \"file\"\nfile = \"{}\"\ndataset = \"f64\"\n",
                       file.string())));
  const auto got = read_all<double>(root / "out" / "scan.h5", "scan");
  EXPECT_EQ((count_mismatches<double, double>(got, reference_scan<double, double>(f64, Mode::exclusive, 0), "file f64")),
            0);
}

TEST_F(ScanSolverTest, RestartEqualsTheUninterruptedRun) {
  const std::string tables = "[scan]\ntype = \"int64\"\n[scan.input]\nlength = 54321\nseed = 3\n";
  run(deck(tables, {"run.steps=3"}, "full"));
  const auto uninterrupted = read_all<std::int64_t>(root / "full" / "scan.h5", "scan");

  const auto first = run(deck(tables + "[checkpoint]\nat_end = true\n", {}, "split"));
  ASSERT_FALSE(first.last_checkpoint.empty());
  const auto second = run(deck(tables, {"run.steps=3"}, "split"), first.last_checkpoint.string());
  EXPECT_EQ(second.first_step, 2);
  EXPECT_EQ(second.last_step, 3);
  EXPECT_EQ(read_all<std::int64_t>(root / "split" / "scan.h5", "scan"), uninterrupted);
  const io::File f = io::File::open(context(), root / "split" / "scan.h5");
  EXPECT_EQ(io::read_attribute<std::int64_t>(f.root(), "steps"), 3);

  // Restarted at its last step: nothing to do but the output, which needs one scan.
  const auto third = run(deck(tables, {}, "again"), first.last_checkpoint.string());
  EXPECT_EQ(third.last_step, 2);
  EXPECT_EQ(read_all<std::int64_t>(root / "again" / "scan.h5", "scan"), uninterrupted);

  expect_input_error([&] { run(deck(tables, {"scan.input.seed=4", "run.steps=3"}, "other"), first.last_checkpoint.string()); },
                     "scan.input.seed = 3 in the checkpoint, 4 now");  // app/restart_check
  expect_input_error([&] { run(deck(tables, {"scan.mode=\"exclusive\"", "run.steps=3"}, "other"), first.last_checkpoint.string()); },
                     "scan.mode = 'inclusive' in the checkpoint, 'exclusive' now");
}

TEST_F(ScanSolverTest, BadDecksAndInputsNameTheKey) {
  const auto file = root / "bad.h5";
  {
    io::File f = io::File::create(context(), file);
    const io::Group r = f.root();
    const Range mine = block_range(100, context().size(), context().rank());
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(mine.count), 7);
    std::vector<std::int32_t> ints(static_cast<std::size_t>(mine.count), 5);
    io::write_1d<std::uint8_t>(r, "u8", bytes, mine.begin, 100);
    io::write_1d<std::int32_t>(r, "x", ints, mine.begin, 100);
    const io::Box3 box{{4, 5, 5}, {0, 0, 0}, {context().rank() == 0 ? 4 : 0, 5, 5}};
    std::vector<float> cube(100, 1.0f);
    io::write_3d<float>(r, "cube", cube, box, io::Strided3::dense(box.size));
  }
  comm::barrier(context());
  const std::string from_file = fmt::format("[scan.input]\nsource = \"file\"\nfile = \"{}\"\n", file.string());
  expect_input_error([&] { run(deck(from_file, {"scan.input.dataset=\"/nope\""})); }, "/nope");
  expect_input_error([&] { run(deck(from_file, {"scan.input.dataset=\"u8\""})); }, "uint8, an unsupported type");
  expect_input_error([&] { run(deck(from_file, {"scan.input.dataset=\"cube\""})); }, "the scan reads a 1-D dataset");
  expect_input_error([&] { run(deck(from_file, {"scan.input.length=99"})); }, "scan.input.length = 99 but");
  expect_input_error([&] { run(deck(from_file, {"scan.type=\"float32\""})); }, "holds int32");
  expect_input_error([&] { run(deck(from_file, {"scan.input.file=\"" + (root / "none.h5").string() + "\""})); },
                     "none.h5");
  expect_input_error([&] { run(deck("[scan.input]\nsource = \"file\"\n")); }, "needs scan.input.file");
  const std::string gen = "[scan.input]\nlength = 1000\n";
  expect_input_error([&] { run(deck("[scan]\ntype = \"float32\"\naccumulate = \"int64\"\n" + gen)); },
                     "applies to integer input");
  expect_input_error([&] { run(deck("[scan]\nvariant = \"lookback\"\n" + gen)); }, "runs on a GPU");
  expect_input_error([&] { run(deck("[scan]\ntype = \"int32\"\n")); }, "needs scan.input.length");
  expect_input_error([&] { run(deck(gen, {"scan.input.low=0.5"})); }, "not a whole number");
  expect_input_error([&] { run(deck(gen, {"scan.input.low=5e9"})); }, "range of int32");
  expect_input_error([&] { run(deck(gen, {"scan.input.low=10", "scan.input.high=1"})); }, "above scan.input.high");
}

}  // namespace
}  // namespace tessera::scan::test
