// The run loop with a small deterministic solver: cadences of outputs, diagnostics and
// checkpoints; pruning; restart from a given or the newest checkpoint equals the uninterrupted
// run bitwise; a stop signal on one rank stops every rank at the same step with a checkpoint;
// deck errors reach every rank as the same input error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/run_command.hpp"
#include "app/signals.hpp"
#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "tests/app/hashwalk_solver.hpp"
#include "tests/support/mpi_test.hpp"
#include "tests/support/temp_dir.hpp"

using namespace tessera;
using tessera::test::context;

namespace {

struct RunLoop : ::testing::Test {
  void SetUp() override {
    probe = std::make_shared<test::HashwalkProbe>();
    registry.add_solver(test::hashwalk_info(probe));
  }
  void TearDown() override {
    app::clear_stop_signal();
  }

  // Writes the deck (rank 0) and loads it on every rank.
  deck::Deck deck(const std::string& extra, const std::vector<std::string>& overrides = {}) {
    const auto path = (root / "deck.toml").string();
    if (context().rank() == 0) {
      std::ofstream out(path);
      out << "[run]\nsolver = \"hashwalk\"\nsteps = 10\nbackend = \"cpu\"\noutput_dir = \"" << (root / "out").string()
          << "\"\nstatus_interval = 0.001\n\n[hashwalk]\nn = 777\n" << extra;
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

  tessera::test::SharedTempDir scratch{"tessera_runloop"};  // collective; removed after each test
  const std::filesystem::path root = scratch.path();
  std::shared_ptr<test::HashwalkProbe> probe;
  app::Registry registry;
};

const char* kCadences = "[output]\nevery = 4\n[diagnostics]\nevery = 5\n[checkpoint]\nevery = 3\nkeep = 2\n";

}  // namespace

TEST_F(RunLoop, CadencesAndPruning) {
  const auto s = run(deck(kCadences));
  EXPECT_EQ(s.first_step, 0);
  EXPECT_EQ(s.last_step, 10);
  EXPECT_DOUBLE_EQ(s.time, 5.0);
  EXPECT_EQ(s.outputs, 4);      // initial, 4, 8, and at the end (10)
  EXPECT_EQ(s.diagnostics, 3);  // initial, 5, 10
  EXPECT_EQ(s.checkpoints, 3);  // 3, 6, 9
  EXPECT_EQ(probe->outputs, 4);
  EXPECT_EQ(probe->diagnostics, 3);
  comm::barrier(context());
  const auto ck = root / "out" / "checkpoints";
  EXPECT_FALSE(std::filesystem::exists(io::checkpoint_path(ck, 3)));
  EXPECT_TRUE(std::filesystem::exists(io::checkpoint_path(ck, 6)));
  EXPECT_TRUE(std::filesystem::exists(io::checkpoint_path(ck, 9)));
  EXPECT_EQ(s.last_checkpoint, io::checkpoint_path(ck, 9));
}

TEST_F(RunLoop, RestartEqualsUninterruptedRunBitwise) {
  const auto d = deck(kCadences);
  run(d);
  const auto uninterrupted = probe->state;
  const auto ck = root / "out" / "checkpoints";

  // From an explicit checkpoint (step 6), then from the newest (step 9).
  const auto s6 = run(d, io::checkpoint_path(ck, 6).string());
  EXPECT_EQ(s6.first_step, 6);
  EXPECT_EQ(s6.last_step, 10);
  EXPECT_EQ(probe->state, uninterrupted);
  const auto s9 = run(d, "latest");
  EXPECT_EQ(s9.first_step, 9);
  EXPECT_EQ(probe->state, uninterrupted);
  EXPECT_EQ(probe->restarts, 2);
}

// A restart at the step of the earlier run's last output does not write that output again:
// at the final step, a multiple of output.every, and where the at-end output fell on a step
// that is no multiple of output.every (the checkpoint there records it).
TEST_F(RunLoop, RestartWritesNoOutputTwice) {
  const auto ck = root / "out" / "checkpoints";
  for (const char* cadences : {"[output]\nevery = 5\n[checkpoint]\nevery = 5\n",
                               "[output]\nevery = 4\n[checkpoint]\nevery = 5\n"}) {
    SCOPED_TRACE(cadences);
    const auto d = deck(cadences);
    run(d);
    const auto at_end = run(d, io::checkpoint_path(ck, 10).string());
    EXPECT_EQ(at_end.first_step, 10);
    EXPECT_EQ(at_end.outputs, 0) << "the step-10 output was written again";
    // From step 5 to 10: the outputs after 5 only (10, and 8 on the every-4 cadence).
    const auto middle = run(d, io::checkpoint_path(ck, 5).string());
    EXPECT_EQ(middle.outputs, std::string(cadences).find("every = 4") == std::string::npos ? 1 : 2);
  }
}

TEST_F(RunLoop, DifferentSeedChangesTheState) {
  run(deck(""));
  const auto a = probe->state;
  run(deck("", {"hashwalk.seed=8"}));
  EXPECT_NE(probe->state, a);  // the comparison above can fail
}

TEST_F(RunLoop, SignalOnOneRankStopsAllWithACheckpoint) {
  const auto d_full = deck("");
  run(d_full);
  const auto uninterrupted = probe->state;

  const auto d = deck("", {"hashwalk.signal_at=4"});
  const auto s = run(d);
  EXPECT_EQ(s.stop_signal, SIGUSR1);
  EXPECT_EQ(s.last_step, 4);
  EXPECT_EQ(s.checkpoints, 1);
  app::clear_stop_signal();
  const auto resumed = run(deck(""), "latest");
  EXPECT_EQ(resumed.first_step, 4);
  EXPECT_EQ(resumed.last_step, 10);
  EXPECT_EQ(probe->state, uninterrupted);
}

TEST_F(RunLoop, EndTimeStopsEarly) {
  const auto s = run(deck("", {"run.end_time=2.0"}));
  EXPECT_EQ(s.last_step, 4);  // t = 0.5 per step
}

TEST_F(RunLoop, RestartLatestWithoutCheckpointIsAnInputError) {
  try {
    run(deck(""), "latest");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoint"), std::string::npos) << e.what();
  }
}

TEST_F(RunLoop, DeckErrorsReachEveryRank) {
  try {
    deck("dtt = 3\n");
    FAIL() << "unknown key accepted";
  } catch (const comm::CollectiveError& e) {
    EXPECT_EQ(e.failed_rank(), 0);
    EXPECT_EQ(e.code(), ExitCode::input_error);
    const std::string m = e.what();
    EXPECT_NE(m.find("deck.toml:"), std::string::npos) << m;
    EXPECT_NE(m.find("dtt"), std::string::npos) << m;
  }
  try {
    app::load_run_deck(context(), registry, (root / "missing.toml").string(), {});
    FAIL() << "missing deck accepted";
  } catch (const comm::CollectiveError& e) {
    EXPECT_EQ(e.code(), ExitCode::input_error);
    EXPECT_NE(std::string(e.what()).find("cannot read the deck"), std::string::npos) << e.what();
  }
}
