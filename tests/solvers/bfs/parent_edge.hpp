#pragma once
// One check for every backend: a top-down step sends no (vertex, parent) pair for a frontier
// vertex's edge back to its own parent on another rank (the parent is reached already; see
// top_down.cuh). On a path split over the ranks, rank 1's first vertex x has its neighbour
// x - 1 on rank 0. Expanded as a root (its own parent), x sends x - 1 to rank 0; expanded with
// x - 1 as its parent, it sends nothing, and still claims x + 1. Needs at least 2 ranks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/search.hpp"
#include "tests/solvers/bfs/graphs.hpp"

namespace tessera::bfs::fixtures {

inline void expect_no_pair_back_to_the_parent(comm::Context& ctx, comm::Transport& transport, Backend backend) {
  const std::int64_t n = 256 * ctx.size();
  const TestGraph path = path_graph(n);
  const VectorEdgeSource source(n, my_block(path.edges, ctx.rank(), ctx.size()));
  const LocalGraph g = build_graph(ctx, source);
  SearchOptions options;
  options.algorithm = Algorithm::top_down;
  SearchDriver driver(ctx, transport, g, backend, options);
  SearchBackend& k = driver.backend();
  const std::int64_t x = g.begin;  // on rank 1: its neighbour x - 1 is rank 0's last vertex
  const std::int64_t row = level_row_size(ctx.size());
  struct Step {
    std::int64_t to_rank0, found;
  };
  // Every rank runs the step (its queue holds x on rank 1 only); no collective inside.
  const auto expand_x = [&](std::int64_t parent) {
    k.reset();
    if (ctx.rank() == 1) k.start(x);
    std::vector<std::int64_t> parents(static_cast<std::size_t>(g.count), -1);
    std::vector<std::int32_t> levels(static_cast<std::size_t>(g.count), -1);
    if (ctx.rank() == 1) {
      parents[0] = parent;
      levels[0] = 1;
    }
    k.upload_window(parents, levels);
    k.top_down(1);
    k.fetch_level_table();
    const std::span<const std::int64_t> table = k.wait_level_table();
    return Step{table[ctx.rank() * row + kRowPairs + 0], table[ctx.rank() * row + kRowFound]};
  };
  const Step as_root = expand_x(x), as_child = expand_x(x - 1);
  if (ctx.rank() != 1) return;
  ASSERT_EQ(g.begin, 256) << "the path's split changed: x - 1 must be on rank 0";
  EXPECT_EQ(as_root.to_rank0, 1) << "a root's edge to another rank's vertex is sent";
  EXPECT_EQ(as_child.to_rank0, 0) << "the edge back to the parent was sent";
  EXPECT_EQ(as_root.found, 1);  // x + 1, claimed here either way
  EXPECT_EQ(as_child.found, 1);
}

}  // namespace tessera::bfs::fixtures
