// Block partition: contiguous, covering, sizes differ by at most one, owner lookup consistent.
#include <gtest/gtest.h>

#include <random>

#include "core/partition.hpp"

using namespace tessera;

TEST(Partition, CoversContiguouslyAndEvenly) {
  std::mt19937_64 g(42);
  for (int trial = 0; trial < 300; ++trial) {
    const int parts = 1 + int(g() % 9);
    const std::int64_t n = trial < 20 ? trial : std::int64_t(g() % 100000);
    std::int64_t next = 0, lo = n, hi = 0;
    for (int i = 0; i < parts; ++i) {
      const Range r = block_range(n, parts, i);
      EXPECT_EQ(r.begin, next);
      next = r.end();
      lo = std::min(lo, r.count);
      hi = std::max(hi, r.count);
    }
    EXPECT_EQ(next, n);
    EXPECT_LE(hi - lo, 1);
  }
}

TEST(Partition, OwnerMatchesRanges) {
  for (std::int64_t n : {0, 1, 5, 7, 64, 1000003}) {
    for (int parts : {1, 2, 3, 4, 7}) {
      for (int i = 0; i < parts; ++i) {
        const Range r = block_range(n, parts, i);
        if (r.count == 0) continue;
        EXPECT_EQ(block_owner(n, parts, r.begin), i) << n << " " << parts;
        EXPECT_EQ(block_owner(n, parts, r.end() - 1), i) << n << " " << parts;
      }
    }
  }
}

TEST(Partition, LargeCounts) {
  const std::int64_t n = (std::int64_t{1} << 40) + 3;
  const Range last = block_range(n, 4, 3);
  EXPECT_EQ(last.end(), n);
  EXPECT_EQ(block_owner(n, 4, n - 1), 3);
}
