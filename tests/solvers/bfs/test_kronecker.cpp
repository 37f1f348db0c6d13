// The Graph500 Kronecker generator: every rank's slice equals the same slice of the whole
// list (so the graph is identical for any number of ranks), the distributed CSR equals the
// serial one row for row, the label and order permutations are bijections, the degree
// distribution is as skewed as the initiator implies, and the list for a fixed seed is pinned
// (a change to the generator shows up here).
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "comm/collectives.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/graph.hpp"
#include "solvers/bfs/random.hpp"
#include "tests/solvers/bfs/graphs.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using namespace tessera::bfs;
using tessera::test::context;

using fixtures::kronecker_edges;

TEST(Kronecker, SlicesAreTheSameForAnyRankCount) {
  auto& ctx = context();
  KroneckerSpec spec;
  spec.scale = 10;
  spec.edgefactor = 7;  // not a power of two: the edge-order permutation cycle-walks
  const auto whole = kronecker_edges(spec);
  const KroneckerEdgeSource mine(spec, ctx.rank(), ctx.size());
  std::vector<Edge> slice(static_cast<std::size_t>(mine.local_edges()));
  mine.fill(0, slice);
  for (std::size_t i = 0; i < slice.size(); ++i) {
    ASSERT_EQ(slice[i].u, whole[mine.first_edge() + i].u) << "edge " << mine.first_edge() + i;
    ASSERT_EQ(slice[i].v, whole[mine.first_edge() + i].v) << "edge " << mine.first_edge() + i;
  }
  EXPECT_EQ(comm::allreduce(ctx, mine.local_edges(), comm::Op::sum), spec.edges());
}

// The batched (vectorised) generator that fill() uses equals the per-edge formula that the
// GPU evaluates, for even and odd scales (odd: the label permutation cycle-walks), an
// edge count that is not a power of two (the order permutation cycle-walks) and batches
// that start and end anywhere.
TEST(Kronecker, BatchedGenerationEqualsThePerEdgeFormula) {
  for (const auto& [scale, edgefactor, seed] : {std::tuple{1, 16, 1}, std::tuple{2, 3, 5}, std::tuple{9, 16, 2},
                                                std::tuple{10, 7, 1}, std::tuple{13, 16, 9}}) {
    KroneckerSpec spec;
    spec.scale = scale;
    spec.edgefactor = edgefactor;
    spec.seed = static_cast<std::uint64_t>(seed);
    const KroneckerGenerator g = make_kronecker(spec);
    const std::int64_t m = spec.edges();
    for (const auto& [first, count] : {std::pair<std::int64_t, std::int64_t>{0, m}, {3, std::min<std::int64_t>(m - 3, 37)},
                                       {m - 1, 1}, {m / 3, m - m / 3}}) {
      std::vector<Edge> out(static_cast<std::size_t>(count));
      generate_edges(g, static_cast<std::uint64_t>(first), out);
      for (std::int64_t i = 0; i < count; ++i) {
        const Edge e = g.edge(static_cast<std::uint64_t>(first + i));
        ASSERT_EQ(out[i].u, e.u) << "scale " << scale << " edge " << first + i;
        ASSERT_EQ(out[i].v, e.v) << "scale " << scale << " edge " << first + i;
      }
    }
  }
}

TEST(Kronecker, DistributedCsrEqualsTheSerialOne) {
  auto& ctx = context();
  KroneckerSpec spec;
  spec.scale = 9;
  const auto whole = kronecker_edges(spec);
  const LocalGraph serial = build_serial_graph(spec.vertices(), whole);
  const LocalGraph g = build_graph(ctx, KroneckerEdgeSource(spec, ctx.rank(), ctx.size()), 1000);
  EXPECT_EQ(g.input_edges, spec.edges());
  EXPECT_EQ(g.directed_edges, serial.directed_edges);
  EXPECT_EQ(g.self_loops, serial.self_loops);
  for (std::int64_t v = 0; v < g.count; ++v) {
    const std::int64_t s = g.begin + v;
    ASSERT_EQ(g.degree(v), serial.degree(s)) << "vertex " << s;
    EXPECT_TRUE(std::equal(g.columns.begin() + g.offsets[v], g.columns.begin() + g.offsets[v + 1],
                           serial.columns.begin() + serial.offsets[s]));
    EXPECT_EQ(g.input_degree[v], serial.input_degree[s]);
  }
  // Rows are sorted, without self-loops or repeats.
  for (std::int64_t v = 0; v < g.count; ++v)
    for (std::int64_t j = g.offsets[v]; j < g.offsets[v + 1]; ++j) {
      EXPECT_NE(g.columns[j], g.begin + v);
      if (j > g.offsets[v]) {
        EXPECT_LT(g.columns[j - 1], g.columns[j]);
      }
    }
}

TEST(Kronecker, PermutationsAreBijections) {
  for (std::uint64_t domain : {1ull, 2ull, 3ull, 7ull, 64ull, 1000ull, 4096ull, 5003ull}) {
    const Permutation p = Permutation::make(domain, 99);
    std::set<std::uint64_t> seen;
    for (std::uint64_t i = 0; i < domain; ++i) {
      const std::uint64_t x = p(i);
      ASSERT_LT(x, domain);
      seen.insert(x);
    }
    EXPECT_EQ(seen.size(), domain);
  }
  // Not the identity, and keyed.
  const Permutation a = Permutation::make(1 << 16, 1), b = Permutation::make(1 << 16, 2);
  int fixed = 0, same = 0;
  for (std::uint64_t i = 0; i < (1 << 16); ++i) {
    fixed += a(i) == i;
    same += a(i) == b(i);
  }
  EXPECT_LT(fixed, 20);
  EXPECT_LT(same, 20);
}

TEST(Kronecker, DegreesAreSkewedAndTheListIsPinned) {
  KroneckerSpec spec;
  spec.scale = 12;
  const auto edges = kronecker_edges(spec);
  std::vector<std::int64_t> degree(static_cast<std::size_t>(spec.vertices()), 0);
  std::uint64_t hash = 0;
  std::int64_t loops = 0;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    ++degree[edges[i].u];
    ++degree[edges[i].v];
    loops += edges[i].u == edges[i].v;
    hash = mix64(hash ^ (static_cast<std::uint64_t>(edges[i].u) << 32 | static_cast<std::uint64_t>(edges[i].v)) ^ i);
  }
  std::sort(degree.rbegin(), degree.rend());
  const double mean = 2.0 * edges.size() / spec.vertices();
  EXPECT_GT(degree[0], 20 * mean);  // hubs
  const auto isolated = std::count(degree.begin(), degree.end(), 0);
  EXPECT_GT(isolated, spec.vertices() / 10);  // and many vertices without edges
  std::int64_t top = 0;
  for (int i = 0; i < spec.vertices() / 100; ++i) top += degree[i];
  EXPECT_GT(top, static_cast<std::int64_t>(0.2 * 2 * edges.size()));  // top 1% hold > 20% of endpoints
  EXPECT_LT(loops, static_cast<std::int64_t>(edges.size() / 100));
  // Another seed gives another graph.
  KroneckerSpec other = spec;
  other.seed = 2;
  const auto edges2 = kronecker_edges(other);
  int equal = 0;
  for (std::size_t i = 0; i < 1000; ++i) equal += edges[i].u == edges2[i].u && edges[i].v == edges2[i].v;
  EXPECT_LT(equal, 10);
  EXPECT_EQ(hash, 298410366587889012ull) << "pinned checksum of the scale-12 seed-1 edge list changed";
}
