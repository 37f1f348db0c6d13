#pragma once
// The rules of the five Graph500 checks for one vertex or one edge, shared by the cpu and
// cuda validators (TESSERA_HD) so they cannot disagree. `parent` and `level` are the global
// arrays of one search; reached means parent != -1 (the parent array is the result Graph500
// validates; the level array is the search's claim, checked against it).
//   1 tree          the root is its own parent; every other reached vertex has a parent in
//                   range, not itself, reached, and its parent chain reaches the root (no
//                   cycles: pointer jumping, first_ancestor + jump_rounds)
//   2 levels        the root has level 0; level -1 exactly where parent -1; a tree edge joins
//                   levels that differ by exactly one
//   3 edge levels   every edge between reached vertices joins levels that differ by <= 1
//   4 spanning      no edge joins a reached and an unreached vertex (the tree spans the
//                   root's component)
//   5 parent edges  every tree edge (v, parent[v]) is an edge of the graph
#include <cstdint>

#include "core/hd.hpp"

namespace tessera::bfs {

struct TreeView {
  const std::int64_t* parent;
  const std::int32_t* level;
  std::int64_t n;
};

// Where pointer jumping starts from v: its parent; -1 unreached; -2 for a broken link (which
// never reaches the root).
TESSERA_HD std::int64_t first_ancestor(const std::int64_t* parent, std::int64_t n, std::int64_t v, std::int64_t root) {
  const std::int64_t p = parent[v];
  if (p == -1) return -1;
  if (v == root) return p == root ? root : -2;
  if (p < 0 || p >= n || p == v) return -2;
  return p;
}

// Enough doubling rounds for any chain in a tree of n vertices to reach its root.
TESSERA_HD int jump_rounds(std::int64_t n) {
  int r = 2;
  while (r < 64 && (std::int64_t{1} << (r - 2)) < n) ++r;
  return r;
}

TESSERA_HD bool tree_violation(const TreeView& t, std::int64_t g, std::int64_t root, std::int64_t ancestor) {
  const std::int64_t p = t.parent[g];
  if (g == root) return p != root;
  if (p == -1) return false;
  if (p < 0 || p >= t.n || p == g) return true;
  if (t.parent[p] == -1) return true;
  return ancestor != root;
}

TESSERA_HD bool level_violation(const TreeView& t, std::int64_t g, std::int64_t root) {
  const std::int64_t p = t.parent[g];
  const std::int32_t l = t.level[g];
  if (g == root) return l != 0;
  if ((p == -1) != (l == -1)) return true;
  if (p < 0 || p >= t.n) return false;  // unreached, or a broken parent (check 1 reports it)
  return t.level[p] < 0 || t.level[p] + 1 != l;
}

TESSERA_HD bool needs_parent_edge(const TreeView& t, std::int64_t g, std::int64_t root) {
  const std::int64_t p = t.parent[g];
  return g != root && p >= 0 && p < t.n && p != g;
}

TESSERA_HD bool edge_level_violation(const TreeView& t, std::int64_t u, std::int64_t w) {
  const std::int32_t lu = t.level[u], lw = t.level[w];
  return lu >= 0 && lw >= 0 && (lu - lw > 1 || lw - lu > 1);
}

TESSERA_HD bool spanning_violation(const TreeView& t, std::int64_t u, std::int64_t w) {
  return (t.parent[u] != -1) != (t.parent[w] != -1);
}

}  // namespace tessera::bfs
