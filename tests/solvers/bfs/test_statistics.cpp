// Graph500's summary statistics on samples worked by hand.
#include <gtest/gtest.h>

#include "solvers/bfs/statistics.hpp"

using namespace tessera::bfs;

TEST(BfsStatistics, QuartilesAndMeansOfEightValues) {
  const Statistics s = summarize({8, 3, 1, 6, 2, 7, 5, 4});
  EXPECT_EQ(s.count, 8);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.first_quartile, 2.5);  // (x[1] + x[2]) / 2
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.third_quartile, 6.5);
  EXPECT_DOUBLE_EQ(s.max, 8);
  EXPECT_DOUBLE_EQ(s.mean, 4.5);
  EXPECT_NEAR(s.stddev, 2.449489742783178, 1e-12);
  const double inv = 1 + 1 / 2. + 1 / 3. + 1 / 4. + 1 / 5. + 1 / 6. + 1 / 7. + 1 / 8.;
  EXPECT_NEAR(s.harmonic_mean, 8 / inv, 1e-12);
  EXPECT_GT(s.harmonic_stddev, 0);
}

TEST(BfsStatistics, OddCountsAndOneValue) {
  const Statistics s = summarize({10, 30, 20, 40, 50});
  EXPECT_DOUBLE_EQ(s.median, 30);
  EXPECT_DOUBLE_EQ(s.first_quartile, 20);  // (x[1] + x[1]) / 2
  EXPECT_DOUBLE_EQ(s.third_quartile, 40);
  const Statistics one = summarize({3});
  EXPECT_DOUBLE_EQ(one.min, 3);
  EXPECT_DOUBLE_EQ(one.harmonic_mean, 3);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  EXPECT_EQ(summarize({}).count, 0);
  // The harmonic mean is dominated by the slowest rate.
  EXPECT_NEAR(summarize({1, 1000}).harmonic_mean, 2000.0 / 1001.0, 1e-12);
}
