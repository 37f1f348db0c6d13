// The merge of the ranks' profiles (comm/profile_merge.hpp): regions that only some ranks
// entered, in any order, give one table with the union of names, sorted; missing regions count
// as zeros; min / mean / max and the rank of the max are right; a rank with no region at all
// takes part without hanging.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "comm/profile_merge.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using tessera::test::context;

namespace {

// Rank r: "all" (r + 1 calls, r + 1 s), "even" on even ranks only, "rank<r>" of its own.
// Rank 2, when there is one, has no regions at all. Names in reverse order on odd ranks.
std::vector<profile::Stat> stats_of(int r) {
  if (r == 2) return {};
  std::vector<profile::Stat> s;
  s.push_back({"all", r + 1, r + 1.0, 0.5 * (r + 1), true});
  if (r % 2 == 0) s.push_back({"even", 2, 0.25, 0.25, false});
  s.push_back({"rank" + std::to_string(r), 1, 0.125, 0.125, false});
  if (r % 2 == 1) std::reverse(s.begin(), s.end());
  return s;
}

const comm::ProfileRow* row_of(const comm::MergedProfile& m, const std::string& name) {
  for (const comm::ProfileRow& r : m.rows)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace

TEST(ProfileMerge, RanksWithDifferentRegions) {
  auto& ctx = context();
  const int p = ctx.size(), me = ctx.rank();
  const comm::MergedProfile m = comm::merge_profile(ctx, stats_of(me), 10.0 + me);
  EXPECT_EQ(m.ranks, p);

  std::vector<std::string> expect{"all"};
  bool any_even = false;
  for (int r = 0; r < p; ++r) {
    if (r == 2) continue;
    expect.push_back("rank" + std::to_string(r));
    any_even = any_even || r % 2 == 0;
  }
  if (any_even) expect.push_back("even");
  std::sort(expect.begin(), expect.end());
  std::vector<std::string> names;
  for (const comm::ProfileRow& r : m.rows) names.push_back(r.name);
  EXPECT_EQ(names, expect);

  EXPECT_DOUBLE_EQ(m.wall.min, 10.0);
  EXPECT_DOUBLE_EQ(m.wall.max, 10.0 + p - 1);
  EXPECT_EQ(m.wall.max_rank, p - 1);

  const comm::ProfileRow* all = row_of(m, "all");
  ASSERT_NE(all, nullptr);
  EXPECT_TRUE(all->top_level);
  double sum = 0, most = 0;
  int most_rank = 0;
  for (int r = 0; r < p; ++r) {
    const double v = r == 2 ? 0.0 : r + 1.0;
    sum += v;
    if (v > most) most = v, most_rank = r;
  }
  EXPECT_DOUBLE_EQ(all->inclusive.mean, sum / p);
  EXPECT_DOUBLE_EQ(all->inclusive.max, most);
  EXPECT_EQ(all->inclusive.max_rank, most_rank);
  EXPECT_DOUBLE_EQ(all->exclusive.max, 0.5 * most);
  EXPECT_DOUBLE_EQ(all->calls.max, most);
  EXPECT_DOUBLE_EQ(all->calls.min, p > 2 ? 0.0 : 1.0);

  // A region of rank 0 alone: zeros elsewhere, its max on rank 0.
  const comm::ProfileRow* own = row_of(m, "rank0");
  ASSERT_NE(own, nullptr);
  EXPECT_FALSE(own->top_level);
  EXPECT_DOUBLE_EQ(own->calls.max, 1.0);
  EXPECT_DOUBLE_EQ(own->calls.min, p > 1 ? 0.0 : 1.0);
  EXPECT_DOUBLE_EQ(own->inclusive.mean, 0.125 / p);
  EXPECT_EQ(own->inclusive.max_rank, 0);
  if (p > 1) {
    const comm::ProfileRow* last = row_of(m, "rank1");
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->exclusive.max_rank, 1);
    EXPECT_DOUBLE_EQ(last->exclusive.min, 0.0);
  }
}

TEST(ProfileMerge, NoRegionsAnywhere) {
  auto& ctx = context();
  const comm::MergedProfile m = comm::merge_profile(ctx, {}, 1.0);
  EXPECT_TRUE(m.rows.empty());
  EXPECT_DOUBLE_EQ(m.wall.mean, 1.0);
}

TEST(ProfileMerge, SpreadOfTiesNamesTheLowestRank) {
  const comm::Spread s = comm::spread_of({1.0, 3.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.mean, 2.25);
  EXPECT_DOUBLE_EQ(s.max, 3.0);
  EXPECT_EQ(s.max_rank, 1);
}
