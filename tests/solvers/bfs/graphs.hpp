#pragma once
// Small test graphs (whole edge lists, the same on every rank) and helpers to distribute
// them: each rank takes a block of the list, as a reader would.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/partition.hpp"
#include "solvers/bfs/edge.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::bfs::fixtures {

struct TestGraph {
  std::string name;
  std::int64_t n = 0;
  std::vector<Edge> edges;
  std::vector<std::int64_t> roots;
};

// Random graph with repeats and self-loops, fixed seed.
inline TestGraph random_graph(std::int64_t n, std::int64_t m, std::uint64_t seed) {
  auto rng = tessera::test::rng(seed);
  std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
  TestGraph g{"random", n, {}, {}};
  for (std::int64_t i = 0; i < m; ++i) g.edges.push_back({pick(rng), pick(rng)});
  g.edges.push_back({3, 3});            // a self-loop
  g.edges.push_back(g.edges.front());   // a repeat
  g.roots = {0, n / 2, n - 1};
  return g;
}

inline TestGraph path_graph(std::int64_t n) {
  TestGraph g{"path", n, {}, {}};
  for (std::int64_t i = 0; i + 1 < n; ++i) g.edges.push_back(i % 2 ? Edge{i + 1, i} : Edge{i, i + 1});
  g.roots = {0, n / 3, n - 1};
  return g;
}

inline TestGraph star_graph(std::int64_t n) {
  TestGraph g{"star", n, {}, {}};
  for (std::int64_t i = 1; i < n; ++i) g.edges.push_back({0, i});
  g.roots = {0, n - 1};
  return g;
}

inline TestGraph grid_graph(std::int64_t nx, std::int64_t ny) {
  TestGraph g{"grid", nx * ny, {}, {}};
  for (std::int64_t y = 0; y < ny; ++y)
    for (std::int64_t x = 0; x < nx; ++x) {
      const std::int64_t v = y * nx + x;
      if (x + 1 < nx) g.edges.push_back({v, v + 1});
      if (y + 1 < ny) g.edges.push_back({v + nx, v});
    }
  g.roots = {0, nx * ny / 2 + nx / 3};
  return g;
}

// Two random components, a path component and isolated vertices; roots in each, and an
// isolated root (degree zero) whose search reaches only itself.
inline TestGraph disconnected_graph() {
  TestGraph g{"disconnected", 400, {}, {}};
  auto rng = tessera::test::rng(77);
  std::uniform_int_distribution<std::int64_t> a(0, 149), b(150, 299);
  for (int i = 0; i < 450; ++i) g.edges.push_back({a(rng), a(rng)});
  for (int i = 0; i < 450; ++i) g.edges.push_back({b(rng), b(rng)});
  for (std::int64_t i = 300; i < 340; ++i) g.edges.push_back({i, i + 1});
  g.roots = {5, 200, 320, 399};  // 341..399 are isolated
  return g;
}

inline std::vector<TestGraph> all_graphs() {
  return {random_graph(300, 900, 5), path_graph(130), star_graph(97), grid_graph(17, 11), disconnected_graph()};
}

// A Kronecker graph's whole edge list (every rank generates all of it).
inline std::vector<Edge> kronecker_edges(const KroneckerSpec& spec) {
  const KroneckerEdgeSource all(spec, 0, 1);
  std::vector<Edge> edges(static_cast<std::size_t>(all.local_edges()));
  all.fill(0, edges);
  return edges;
}

// This rank's block of a whole edge list.
inline std::vector<Edge> my_block(const std::vector<Edge>& edges, int rank, int ranks) {
  const Range r = block_range(static_cast<std::int64_t>(edges.size()), ranks, rank);
  return {edges.begin() + r.begin, edges.begin() + r.end()};
}

// Input edges with an endpoint reached (Graph500's count), from the whole list.
inline std::int64_t component_edges(const std::vector<Edge>& edges, const std::vector<std::int32_t>& level) {
  std::int64_t count = 0;
  for (const Edge& e : edges) count += level[e.u] >= 0 ? 1 : 0;
  return count;
}

}  // namespace tessera::bfs::fixtures
