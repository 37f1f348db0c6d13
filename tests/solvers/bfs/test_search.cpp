// Every search algorithm on the cpu backend, over P ranks, against the serial reference on
// the whole graph: identical levels, the same reached count and Graph500 edge count, and
// parents that pass validation. Graphs: random (with repeats and self-loops), path, star,
// grid, disconnected with an isolated root. Direction switching is forced both ways; the
// eager pairs that travel with the level counts are made too few for some levels.
#include <gtest/gtest.h>

#include "comm/collectives.hpp"
#include "comm/transport.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/reference.hpp"
#include "solvers/bfs/search.hpp"
#include "solvers/bfs/validate.hpp"
#include "tests/solvers/bfs/graphs.hpp"
#include "tests/solvers/bfs/parent_edge.hpp"

using namespace tessera;
using namespace tessera::bfs;
using tessera::test::context;

namespace {

struct Case {
  Algorithm algorithm;
  DirectionPolicy policy;
  const char* label;
  std::int64_t eager = -1;  // SearchOptions::eager_pairs
};

std::vector<Case> cases(int ranks) {
  std::vector<Case> c = {
      {Algorithm::direction_optimizing, {}, "do"},
      {Algorithm::direction_optimizing, {0.01, 1e9}, "do-switch-every-level"},  // bottom-up at once, back at once
      {Algorithm::direction_optimizing, {1e9, 1.0}, "do-never-switch"},
      {Algorithm::top_down, {}, "top_down"},
      {Algorithm::top_down, {}, "top_down-no-eager-pairs", 0},     // every pair after the counts
      {Algorithm::top_down, {}, "top_down-one-eager-pair", 1},     // the rest after the counts
      {Algorithm::direction_optimizing, {}, "do-three-eager-pairs", 3},
      {Algorithm::bottom_up, {}, "bottom_up"},
      {Algorithm::edge_parallel, {}, "edge_parallel"},
  };
  if (ranks == 1) c.push_back({Algorithm::serial, {}, "serial"});
  return c;
}

}  // namespace

TEST(BfsSearch, AllAlgorithmsMatchTheSerialReference) {
  auto& ctx = context();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  for (const auto& tg : fixtures::all_graphs()) {
    const LocalGraph whole = build_serial_graph(tg.n, tg.edges);
    const VectorEdgeSource source(tg.n, fixtures::my_block(tg.edges, ctx.rank(), ctx.size()));
    const LocalGraph g = build_graph(ctx, source, 37);  // small chunks: several exchange rounds
    ASSERT_EQ(g.input_edges, static_cast<std::int64_t>(tg.edges.size()));
    ASSERT_EQ(g.directed_edges, whole.directed_edges) << tg.name;
    for (const Case& c : cases(ctx.size())) {
      SearchDriver driver(ctx, *transport, g, Backend::cpu, SearchOptions{c.algorithm, c.policy, c.eager});
      for (std::int64_t root : tg.roots) {
        SCOPED_TRACE(tg.name + " / " + c.label + " / root " + std::to_string(root));
        const BfsTree ref = serial_bfs(whole, root);
        const SearchResult r = driver.search(root);
        const ValidationReport v = validate(driver, root);
        EXPECT_TRUE(v.ok()) << v.message;
        const BfsTree t = driver.global_tree();
        EXPECT_EQ(t.level, ref.level);
        const auto reached = std::count_if(ref.level.begin(), ref.level.end(), [](int l) { return l >= 0; });
        EXPECT_EQ(r.reached, reached);
        EXPECT_EQ(r.input_edges, fixtures::component_edges(tg.edges, ref.level));
        EXPECT_EQ(r.depth, *std::max_element(ref.level.begin(), ref.level.end()));
        for (std::int64_t v = 0; v < tg.n; ++v) EXPECT_EQ(t.parent[v] == -1, ref.level[v] == -1) << "vertex " << v;
      }
    }
  }
}

TEST(BfsSearch, DirectionOptimizingSwitchesOnAKroneckerGraph) {
  auto& ctx = context();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  KroneckerSpec spec;
  spec.scale = 11;
  const KroneckerEdgeSource source(spec, ctx.rank(), ctx.size());
  const LocalGraph g = build_graph(ctx, source);
  SearchDriver driver(ctx, *transport, g, Backend::cpu, SearchOptions{});
  // The vertex of largest degree (the smallest such id) is in the giant component.
  std::int64_t most = 0;
  for (std::int64_t v = 0; v < g.count; ++v) most = std::max(most, g.degree(v));
  most = comm::allreduce(ctx, most, comm::Op::max);
  std::int64_t root = INT64_MAX;
  for (std::int64_t v = 0; v < g.count && root == INT64_MAX; ++v)
    if (g.degree(v) == most) root = g.begin + v;
  root = comm::allreduce(ctx, root, comm::Op::min);
  const SearchResult r = driver.search(root);
  EXPECT_GT(r.bottom_up_levels, 0);
  EXPECT_GT(r.top_down_levels, 0);
  EXPECT_TRUE(validate(driver, root).ok());
  EXPECT_GT(r.reached, g.vertices() / 4);
}

TEST(BfsSearch, TopDownSendsNoPairBackToTheParent) {
  auto& ctx = context();
  if (ctx.size() < 2) GTEST_SKIP() << "needs another rank";
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  fixtures::expect_no_pair_back_to_the_parent(ctx, *transport, Backend::cpu);
}
