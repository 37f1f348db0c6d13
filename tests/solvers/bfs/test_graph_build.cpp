// The CSR build (graph.cpp): for any rank count, chunk size (rounds of the exchange) and
// bucket size, every row equals the one a naive reference builds (sorted set of the
// neighbours without the vertex itself; input degree = endpoints as given), and the CSR of
// fixed Kronecker graphs is pinned by checksums taken with the original build, so a faster
// build cannot change the graph that is searched.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "comm/collectives.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/graph.hpp"
#include "solvers/bfs/random.hpp"
#include "tests/solvers/bfs/graphs.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using namespace tessera::bfs;
using tessera::test::context;

namespace {

// Order-independent checksum of the whole CSR (rows, input degrees), the same for any P.
std::uint64_t csr_checksum(comm::Context& ctx, const LocalGraph& g) {
  std::uint64_t sum = 0;
  for (std::int64_t v = 0; v < g.count; ++v) {
    std::uint64_t h = mix64(static_cast<std::uint64_t>(g.begin + v) ^ 0x5bd1e995ull);
    h = mix64(h ^ static_cast<std::uint64_t>(g.input_degree[v]));
    h = mix64(h ^ static_cast<std::uint64_t>(g.degree(v)));
    for (std::int64_t j = g.offsets[v]; j < g.offsets[v + 1]; ++j) h = mix64(h ^ static_cast<std::uint64_t>(g.columns[j]));
    sum += h;
  }
  return comm::allreduce(ctx, sum, comm::Op::sum);
}

struct Reference {
  std::vector<std::set<std::int64_t>> rows;
  std::vector<std::int64_t> input_degree;
  std::int64_t self_loops = 0, entries = 0;
};

Reference naive_csr(std::int64_t n, const std::vector<Edge>& edges) {
  Reference r;
  r.rows.resize(static_cast<std::size_t>(n));
  r.input_degree.assign(static_cast<std::size_t>(n), 0);
  for (const Edge& e : edges) {
    ++r.input_degree[e.u];
    ++r.input_degree[e.v];
    if (e.u == e.v) {
      ++r.self_loops;
      continue;
    }
    r.rows[e.u].insert(e.v);
    r.rows[e.v].insert(e.u);
  }
  for (const auto& row : r.rows) r.entries += static_cast<std::int64_t>(row.size());
  return r;
}

void expect_equal(const LocalGraph& g, const Reference& ref, std::int64_t input_edges, const std::string& what) {
  EXPECT_EQ(g.input_edges, input_edges) << what;
  EXPECT_EQ(g.self_loops, ref.self_loops) << what;
  EXPECT_EQ(g.directed_edges, ref.entries) << what;
  ASSERT_EQ(static_cast<std::int64_t>(g.offsets.size()), g.count + 1) << what;
  EXPECT_EQ(g.offsets[0], 0) << what;
  EXPECT_EQ(g.offsets[g.count], g.local_entries()) << what;
  for (std::int64_t v = 0; v < g.count; ++v) {
    const auto& row = ref.rows[g.begin + v];
    ASSERT_EQ(g.degree(v), static_cast<std::int64_t>(row.size())) << what << ": vertex " << g.begin + v;
    ASSERT_TRUE(std::equal(row.begin(), row.end(), g.columns.begin() + g.offsets[v])) << what << ": vertex " << g.begin + v;
    ASSERT_EQ(g.input_degree[v], ref.input_degree[g.begin + v]) << what << ": vertex " << g.begin + v;
  }
}

}  // namespace

TEST(GraphBuild, RowsEqualANaiveReferenceForAnyChunkAndBucket) {
  auto& ctx = context();
  std::vector<fixtures::TestGraph> graphs = fixtures::all_graphs();
  graphs.push_back(fixtures::random_graph(5000, 60000, 11));  // many repeats per row
  graphs.push_back(fixtures::random_graph(70, 3000, 12));     // fewer words than ranks at P = 4: empty ranks
  graphs.push_back({"no edges", 200, {}, {}});
  fixtures::TestGraph hub = fixtures::star_graph(3000);        // one row holding every vertex, twice
  const auto once = hub.edges;
  hub.edges.insert(hub.edges.end(), once.rbegin(), once.rend());
  graphs.push_back(hub);
  for (const auto& tg : graphs) {
    const Reference ref = naive_csr(tg.n, tg.edges);
    for (std::int64_t chunk : {std::int64_t{1} << 22, std::int64_t{977}, std::int64_t{1}}) {
      if (chunk == 1 && tg.edges.size() > 5000) continue;  // one edge per round: small graphs only
      for (std::int64_t bucket_rows : {std::int64_t{0}, std::int64_t{64}, std::int64_t{192}}) {
        const std::string what = tg.name + " chunk " + std::to_string(chunk) + " bucket " + std::to_string(bucket_rows);
        const VectorEdgeSource source(tg.n, fixtures::my_block(tg.edges, ctx.rank(), ctx.size()));
        const LocalGraph g = build_graph(ctx, source, chunk, bucket_rows);
        expect_equal(g, ref, static_cast<std::int64_t>(tg.edges.size()), what);
      }
    }
  }
}

TEST(GraphBuild, SerialGraphEqualsTheReference) {
  const fixtures::TestGraph tg = fixtures::random_graph(900, 20000, 4);
  const LocalGraph g = build_serial_graph(tg.n, tg.edges);
  expect_equal(g, naive_csr(tg.n, tg.edges), static_cast<std::int64_t>(tg.edges.size()), "serial");
}

// Checksums of the CSR built by the original implementation (commit a223ad7): the graph
// searched must not change when its construction does.
TEST(GraphBuild, KroneckerCsrIsPinned) {
  auto& ctx = context();
  struct Pinned {
    int scale;
    std::int64_t edgefactor;
    std::uint64_t seed;
    std::int64_t directed_edges, self_loops;
    std::uint64_t checksum;
  };
  const Pinned cases[] = {
      {12, 16, 1, 96350, 197, 13873235034520135423ull},
      {11, 7, 3, 22742, 89, 9035373395838658631ull},  // odd scale: both permutations cycle-walk
  };
  for (const Pinned& c : cases) {
    KroneckerSpec spec;
    spec.scale = c.scale;
    spec.edgefactor = c.edgefactor;
    spec.seed = c.seed;
    for (std::int64_t bucket_rows : {std::int64_t{0}, std::int64_t{128}}) {
      const LocalGraph g = build_graph(ctx, KroneckerEdgeSource(spec, ctx.rank(), ctx.size()), 5000, bucket_rows);
      EXPECT_EQ(g.input_edges, spec.edges());
      EXPECT_EQ(g.directed_edges, c.directed_edges) << "scale " << c.scale;
      EXPECT_EQ(g.self_loops, c.self_loops) << "scale " << c.scale;
      EXPECT_EQ(csr_checksum(ctx, g), c.checksum) << "scale " << c.scale << " bucket " << bucket_rows;
    }
  }
}
