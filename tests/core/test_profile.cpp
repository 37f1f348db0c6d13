// Region bookkeeping (core/profile.hpp): calls, inclusive and exclusive times of nested
// regions, recursion, top-level marks, and that nothing is recorded when profiling is off or
// on another thread. Times come from sleeps, so the checks are bounds, not equalities.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/profile.hpp"

using namespace tessera;

namespace {

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

const profile::Stat* find(const std::vector<profile::Stat>& stats, const std::string& name) {
  for (const profile::Stat& s : stats)
    if (s.name == name) return &s;
  return nullptr;
}

void recurse(int depth) {
  TESSERA_PROFILE("test.recursive");
  sleep_ms(5);
  if (depth > 1) recurse(depth - 1);
}

}  // namespace

TEST(Profile, OffRecordsNothing) {
  profile::start();
  profile::stop();
  {
    TESSERA_PROFILE("test.off");
    profile::Region r("test.off_named");
  }
  EXPECT_FALSE(profile::enabled());
  EXPECT_TRUE(profile::snapshot().empty());
}

TEST(Profile, NestedRegionsSplitExclusiveFromInclusive) {
  profile::start();
  for (int i = 0; i < 3; ++i) {
    TESSERA_PROFILE("test.outer");
    sleep_ms(10);
    {
      TESSERA_PROFILE("test.inner");
      sleep_ms(20);
    }
    {
      profile::Region r("test.inner");  // the same name by text: the same record
      sleep_ms(5);
    }
  }
  profile::stop();
  const auto stats = profile::snapshot();
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "test.inner");  // sorted by name
  const profile::Stat* outer = find(stats, "test.outer");
  const profile::Stat* inner = find(stats, "test.inner");
  ASSERT_TRUE(outer && inner);
  EXPECT_EQ(outer->calls, 3);
  EXPECT_EQ(inner->calls, 6);
  EXPECT_TRUE(outer->top_level);
  EXPECT_FALSE(inner->top_level);
  // The inner region's time is in the outer's inclusive time, not in its exclusive time.
  EXPECT_GE(inner->inclusive, 3 * 0.025);
  EXPECT_DOUBLE_EQ(inner->inclusive, inner->exclusive);  // nothing nested inside it
  EXPECT_NEAR(outer->exclusive, outer->inclusive - inner->inclusive, 1e-9);
  EXPECT_GE(outer->exclusive, 3 * 0.010);
  EXPECT_LT(outer->exclusive, inner->inclusive);  // 30 ms of its own against 75 ms nested
  EXPECT_LE(outer->inclusive, profile::wall_seconds());
}

TEST(Profile, RecursionCountsInclusiveTimeOnce) {
  profile::start();
  recurse(3);  // three nested calls of one name, 5 ms each
  profile::stop();
  const auto stats = profile::snapshot();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].calls, 3);
  EXPECT_GE(stats[0].inclusive, 0.015);
  // Inclusive is the outermost call's time only (not 15 + 10 + 5 ms), exclusive the sum of
  // each call's own time: both are the whole recursion here.
  EXPECT_LT(stats[0].inclusive, 0.028);
  EXPECT_NEAR(stats[0].inclusive, stats[0].exclusive, 1e-9);
}

TEST(Profile, StartClearsAndStopClosesOpenRegions) {
  profile::start();
  { TESSERA_PROFILE("test.before"); }
  profile::start();  // a new run: the earlier record is gone
  {
    profile::Region open("test.open");
    sleep_ms(5);
    profile::stop();  // closes it; its destructor then adds nothing
  }
  const auto stats = profile::snapshot();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].name, "test.open");
  EXPECT_EQ(stats[0].calls, 1);
  EXPECT_GE(stats[0].inclusive, 0.005);
}

TEST(Profile, EndClosesEarly) {
  profile::start();
  profile::Region r("test.ended");
  sleep_ms(5);
  r.end();
  sleep_ms(20);
  r.end();  // twice: nothing more
  profile::stop();
  const auto stats = profile::snapshot();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].calls, 1);
  EXPECT_LT(stats[0].inclusive, 0.020);
}

TEST(Profile, OtherThreadsAreIgnored) {
  profile::start();
  {
    TESSERA_PROFILE("test.main");
    std::thread t([] { TESSERA_PROFILE("test.worker"); });
    t.join();
  }
  profile::stop();
  const auto stats = profile::snapshot();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].name, "test.main");
}

TEST(Profile, SyncRegionOnTheNullStreamWorksWithoutCuda) {
  profile::start();
  { TESSERA_PROFILE_SYNC("test.kernels", nullptr); }
  profile::stop();
  ASSERT_EQ(profile::snapshot().size(), 1u);
}
