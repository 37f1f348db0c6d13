// Delegated hubs (delegates.hpp), built on the host for P = 1..4: the hubs are every vertex of
// the whole graph with degree >= the threshold, in id order, split by owner into consecutive
// ranges and whole bitmap words; each rank's part of a hub's row is exactly the hub's
// neighbours that it owns (local ids, ascending), so the parts of all ranks make up the row.
// The automatic threshold is the lowest power of two >= 256 keeping at most 32768 hubs.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "comm/collectives.hpp"
#include "solvers/bfs/delegates.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/graph.hpp"
#include "tests/solvers/bfs/graphs.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using namespace tessera::bfs;
using tessera::test::context;

namespace {

KroneckerSpec spec_of(int scale) {
  KroneckerSpec spec;
  spec.scale = scale;
  return spec;
}

}  // namespace

TEST(BfsDelegates, HubRowsArePartitionedByTheOwnersOfTheirNeighbours) {
  auto& ctx = context();
  const KroneckerSpec spec = spec_of(11);
  const LocalGraph whole = build_serial_graph(spec.vertices(), fixtures::kronecker_edges(spec));
  const LocalGraph g = build_graph(ctx, KroneckerEdgeSource(spec, ctx.rank(), ctx.size()));
  for (const std::int64_t threshold : {1, 7, 40}) {
    SCOPED_TRACE("threshold " + std::to_string(threshold));
    const Delegates d = build_delegates(ctx, g, threshold);
    std::vector<std::int64_t> expected;
    for (std::int64_t v = 0; v < whole.count; ++v)
      if (whole.degree(v) >= threshold) expected.push_back(v);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(d.hubs, expected);
    EXPECT_EQ(d.threshold, threshold);
    ASSERT_EQ(d.first.size(), static_cast<std::size_t>(ctx.size()) + 1);
    ASSERT_EQ(d.word_first.size(), static_cast<std::size_t>(ctx.size()) + 1);
    for (int r = 0; r < ctx.size(); ++r) {
      const Range owned = g.partition.range(r);
      for (std::int64_t k = d.first[r]; k < d.first[r + 1]; ++k) {
        EXPECT_GE(d.hubs[k], owned.begin);
        EXPECT_LT(d.hubs[k], owned.begin + owned.count);
      }
      EXPECT_EQ(d.word_first[r + 1] - d.word_first[r], (d.first[r + 1] - d.first[r] + 63) / 64);
    }
    EXPECT_EQ(d.first.back(), d.count());
    ASSERT_EQ(d.offsets.size(), static_cast<std::size_t>(d.count()) + 1);
    std::int64_t entries = 0;
    for (std::int64_t k = 0; k < d.count(); ++k) {
      const std::int64_t h = d.hubs[k];
      std::vector<std::uint32_t> mine;  // h's neighbours owned here, as local ids
      for (std::int64_t j = whole.offsets[h]; j < whole.offsets[h + 1]; ++j)
        if (g.owns(whole.columns[j])) mine.push_back(static_cast<std::uint32_t>(whole.columns[j] - g.begin));
      const std::vector<std::uint32_t> got(d.targets.begin() + d.offsets[k], d.targets.begin() + d.offsets[k + 1]);
      EXPECT_EQ(got, mine) << "hub " << h;
      entries += static_cast<std::int64_t>(got.size());
    }
    // Over all ranks the parts hold each hub's whole row once.
    std::int64_t row_total = 0;
    for (const std::int64_t h : expected) row_total += whole.degree(h);
    EXPECT_EQ(comm::allreduce(ctx, entries, comm::Op::sum), row_total);
  }
}

TEST(BfsDelegates, TheHubDegreeFollowsTheRequest) {
  auto& ctx = context();
  const LocalGraph g = build_graph(ctx, KroneckerEdgeSource(spec_of(12), ctx.rank(), ctx.size()));
  EXPECT_EQ(choose_hub_degree(ctx, g, 0), 0);
  EXPECT_EQ(choose_hub_degree(ctx, g, 5), ctx.size() == 1 ? 0 : 5);  // one rank has nothing to balance
  const std::int64_t automatic = choose_hub_degree(ctx, g, -1);
  if (ctx.size() == 1) {
    EXPECT_EQ(automatic, 0);
    return;
  }
  ASSERT_GE(automatic, kMinAutoHubDegree);
  EXPECT_EQ(automatic & (automatic - 1), 0) << automatic << " is not a power of two";
  std::int64_t above = 0;
  for (std::int64_t v = 0; v < g.count; ++v) above += g.degree(v) >= automatic ? 1 : 0;
  EXPECT_LE(comm::allreduce(ctx, above, comm::Op::sum), kMaxAutoHubs);
  // No delegates when none is asked for.
  EXPECT_FALSE(build_delegates(ctx, g, 0).active());
}
