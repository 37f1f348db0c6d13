// Formatting of status lines: SI prefixes and clock times.
#include <gtest/gtest.h>

#include "app/status.hpp"

using namespace tessera::app;

TEST(Status, SiPrefixes) {
  EXPECT_EQ(si(0), "0");
  EXPECT_EQ(si(999), "999");
  EXPECT_EQ(si(1234), "1.23 k");
  EXPECT_EQ(si(2.2e12), "2.2 T");
  EXPECT_EQ(si(-5.5e6), "-5.5 M");
}

TEST(Status, ClockText) {
  EXPECT_EQ(clock_text(0), "0:00");
  EXPECT_EQ(clock_text(61.4), "1:01");
  EXPECT_EQ(clock_text(3723), "1:02:03");
  EXPECT_EQ(clock_text(-1), "?");
}

// A solver with a simulated time and no rate of its own (nbody, fdtd): the closing line gives
// the time and the mean rate, saying what that rate is measured over.
TEST(Status, ClosingLineOfATimeStepper) {
  StatusReporter status(1e9, 0, 4, std::nullopt, {"cell-updates", true, false});
  for (int s = 1; s <= 4; ++s) status.stepped(s, 0.25 * s, 1e6);
  EXPECT_EQ(status.finish_text(4, 1.0, 2.0),
            "done: step 4, t = 1, 4 steps in 0:02 (2.000 s), mean 2 M cell-updates/s over this wall time (output, "
            "diagnostics and checkpoints included)");
  EXPECT_EQ(status.progress_text(2, 0.5, 3e6, 1.0, 1.0), "step        2/4  t = 0.5         3 M cell-updates/s  elapsed 0:01  ETA 0:01");
}

// A solver without simulated time that reports its measured rate itself (scan, bfs, an spmv
// multiply run): no "t =" anywhere, and no second, contradicting rate in the closing line.
TEST(Status, ClosingLineOfASolverWithoutTimeThatReportsItsRate) {
  StatusReporter status(1e9, 0, 64, std::nullopt, {"elements", false, true});
  for (int s = 1; s <= 64; ++s) status.stepped(s, s, 1e9);
  const std::string done = status.finish_text(64, 64, 12.5);
  EXPECT_EQ(done, "done: step 64, 64 steps in 0:13 (12.500 s)");
  EXPECT_EQ(done.find("t ="), std::string::npos);
  EXPECT_EQ(status.progress_text(10, 10, 1e9, 2.0, 10.8), "step       10/64  1 G elements/s  elapsed 0:02  ETA 0:11");
}

// Without time but without a rate of its own (an spmv CG run): the mean rate stays, labelled.
TEST(Status, ClosingLineWithoutTimeKeepsALabelledRate) {
  StatusReporter status(1e9, 10, 20, std::nullopt, {"flop", false, false});
  for (int s = 11; s <= 20; ++s) status.stepped(s, s, 4e8);
  EXPECT_EQ(status.finish_text(20, 20, 4.0),
            "done: step 20, 10 steps in 0:04 (4.000 s), mean 1 G flop/s over this wall time (output, diagnostics and "
            "checkpoints included)");
}
