// Rank-aware logging: info only on rank 0; errors on every rank, with the rank when P > 1.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/log.hpp"

using namespace tessera;
using testing::internal::CaptureStderr;
using testing::internal::CaptureStdout;
using testing::internal::GetCapturedStderr;
using testing::internal::GetCapturedStdout;

class Logging : public ::testing::Test {
 protected:
  void TearDown() override {
    log::set_rank(0, 1);
    log::set_level(log::Level::info);
  }
};

TEST_F(Logging, InfoOnlyOnRankZero) {
  log::set_rank(0, 4);
  CaptureStdout();
  log::info("step {} of {}", 3, 10);
  EXPECT_EQ(GetCapturedStdout(), "[tessera] step 3 of 10\n");
  log::set_rank(2, 4);
  CaptureStdout();
  log::info("step {} of {}", 3, 10);
  EXPECT_EQ(GetCapturedStdout(), "");
}

TEST_F(Logging, ErrorsOnEveryRankWithRank) {
  log::set_rank(3, 4);
  CaptureStderr();
  log::error("cannot open {}", "deck.toml");
  EXPECT_EQ(GetCapturedStderr(), "[tessera r3] error: cannot open deck.toml\n");
  log::set_rank(0, 1);
  CaptureStderr();
  log::error("cannot open {}", "deck.toml");
  EXPECT_EQ(GetCapturedStderr(), "[tessera] error: cannot open deck.toml\n");
}

TEST_F(Logging, LevelFilters) {
  log::set_level(log::Level::warn);
  CaptureStdout();
  CaptureStderr();
  log::info("hidden");
  log::debug("hidden");
  log::warn("shown");
  EXPECT_EQ(GetCapturedStdout(), "");
  EXPECT_EQ(GetCapturedStderr(), "[tessera] warning: shown\n");
  log::set_level(log::Level::debug);
  CaptureStdout();
  log::debug("now shown");
  EXPECT_EQ(GetCapturedStdout(), "[tessera] now shown\n");
}

TEST_F(Logging, ParseLevel) {
  EXPECT_EQ(log::parse_level("debug"), log::Level::debug);
  EXPECT_EQ(log::parse_level("warning"), log::Level::warn);
  EXPECT_THROW(log::parse_level("loud"), InputError);
}
