// The validator rejects deliberately broken search results, each of the five Graph500
// checks on its own, over P ranks (every rank gets the same verdict and message), and
// accepts a valid tree that is not the one the search found.
#include <gtest/gtest.h>

#include "comm/transport.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/reference.hpp"
#include "solvers/bfs/search.hpp"
#include "solvers/bfs/validate.hpp"
#include "tests/solvers/bfs/graphs.hpp"

using namespace tessera;
using namespace tessera::bfs;
using tessera::test::context;

namespace {

// A graph distributed over the ranks, its driver, and a way to validate any global tree.
struct Fixture {
  explicit Fixture(const fixtures::TestGraph& tg)
      : ctx(context()), transport(comm::make_transport(ctx, Backend::cpu, "auto").transport),
        whole(build_serial_graph(tg.n, tg.edges)),
        graph(build_graph(ctx, VectorEdgeSource(tg.n, fixtures::my_block(tg.edges, ctx.rank(), ctx.size())))),
        driver(ctx, *transport, graph, Backend::cpu, SearchOptions{}) {}

  ValidationReport check(const BfsTree& t, std::int64_t root) {
    const auto b = static_cast<std::size_t>(graph.begin), c = static_cast<std::size_t>(graph.count);
    driver.backend().upload_window(std::span(t.parent).subspan(b, c), std::span(t.level).subspan(b, c));
    return validate(driver, root);
  }

  comm::Context& ctx;
  std::unique_ptr<comm::Transport> transport;
  LocalGraph whole, graph;
  SearchDriver driver;
};

bool adjacent(const LocalGraph& whole, std::int64_t u, std::int64_t w) {
  return std::binary_search(whole.columns.begin() + whole.offsets[u], whole.columns.begin() + whole.offsets[u + 1], w);
}

// Expects exactly the check `only` to fail, with its name in the message.
void expect_only(const ValidationReport& r, int only) {
  EXPECT_FALSE(r.ok());
  for (int c = 0; c < kChecks; ++c) {
    if (c == only) EXPECT_GT(r.violations[c], 0) << "check " << c + 1 << " should fail:" << r.message;
    else EXPECT_EQ(r.violations[c], 0) << "check " << c + 1 << " should pass:" << r.message;
  }
  EXPECT_NE(r.message.find("check " + std::to_string(only + 1) + " "), std::string::npos) << r.message;
}

}  // namespace

TEST(BfsValidate, AcceptsTheSearchAndTheReference) {
  const auto tg = fixtures::grid_graph(9, 7);
  Fixture f(tg);
  const std::int64_t root = 10;
  f.driver.search(root);
  EXPECT_TRUE(validate(f.driver, root).ok());
  EXPECT_TRUE(f.check(serial_bfs(f.whole, root), root).ok());
}

TEST(BfsValidate, RejectsEachBrokenProperty) {
  const auto tg = fixtures::grid_graph(9, 7);
  Fixture f(tg);
  const std::int64_t root = 10;
  const BfsTree good = serial_bfs(f.whole, root);
  const std::int64_t n = tg.n;
  // A vertex deep in the tree that is nobody's parent (a leaf), and its parent.
  std::int64_t leaf = -1;
  for (std::int64_t v = 0; v < n; ++v) {
    if (good.level[v] < 3) continue;
    if (std::find(good.parent.begin(), good.parent.end(), v) == good.parent.end()) {
      leaf = v;
      break;
    }
  }
  ASSERT_GE(leaf, 0);

  {  // 1 tree: the root is not its own parent
    BfsTree t = good;
    t.parent[root] = f.whole.columns[f.whole.offsets[root]];
    expect_only(f.check(t, root), kTree);
  }
  {  // 1 tree: a parent outside the graph
    BfsTree t = good;
    t.parent[leaf] = n + 5;
    const auto r = f.check(t, root);
    EXPECT_GT(r.violations[kTree], 0);
    EXPECT_NE(r.message.find("outside"), std::string::npos) << r.message;
  }
  {  // 1 tree: a cycle (a vertex and its parent point at each other); levels break too
    BfsTree t = good;
    const std::int64_t p = good.parent[leaf];
    t.parent[p] = leaf;
    const auto r = f.check(t, root);
    EXPECT_GT(r.violations[kTree], 0) << r.message;
    EXPECT_NE(r.message.find("cycle"), std::string::npos) << r.message;
  }
  {  // 2 levels: a leaf one level too deep (its edges still within one level: levels only)
    BfsTree t = good;
    t.level[leaf] += 1;
    const auto r = f.check(t, root);
    EXPECT_GT(r.violations[kLevels], 0) << r.message;
    EXPECT_EQ(r.violations[kTree], 0) << r.message;
    EXPECT_EQ(r.violations[kParentEdges], 0) << r.message;
  }
  {  // 2 levels: reached without a level
    BfsTree t = good;
    t.level[leaf] = -1;
    EXPECT_GT(f.check(t, root).violations[kLevels], 0);
  }
  {  // 4 spanning: a leaf left out of the tree entirely
    BfsTree t = good;
    t.parent[leaf] = -1;
    t.level[leaf] = -1;
    expect_only(f.check(t, root), kSpanning);
  }
  {  // 5 parent edges: a parent one level up that is not a neighbour
    BfsTree t = good;
    std::int64_t other = -1;
    for (std::int64_t u = 0; u < n && other < 0; ++u)
      if (good.level[u] == good.level[leaf] - 1 && !adjacent(f.whole, leaf, u)) other = u;
    ASSERT_GE(other, 0);
    t.parent[leaf] = other;
    expect_only(f.check(t, root), kParentEdges);
  }
}

TEST(BfsValidate, RejectsAValidTreeThatIsNotBreadthFirst) {
  // A cycle 0-1-...-5-0 searched from 0 as if it were a path: a tree with consistent levels
  // and real edges, but edge (5, 0) joins levels 5 and 0.
  fixtures::TestGraph cycle{"cycle", 6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}}, {0}};
  Fixture f(cycle);
  BfsTree t;
  t.parent = {0, 0, 1, 2, 3, 4};
  t.level = {0, 1, 2, 3, 4, 5};
  expect_only(f.check(t, 0), kEdgeLevels);
}
