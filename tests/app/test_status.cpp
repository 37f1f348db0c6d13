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
