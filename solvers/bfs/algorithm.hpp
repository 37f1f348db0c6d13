#pragma once
// The search algorithms a run or a benchmark can pick.
//   direction_optimizing  top-down while the frontier is small, bottom-up while it is large
//                         (Beamer's alpha/beta switch), the default
//   top_down              top-down every level (frontier queue, load-balanced edge expansion)
//   bottom_up             bottom-up every level after the root (frontier bitmap)
//   edge_parallel         the seed's baseline: every level scans every edge, O(levels * E)
//   serial                the textbook FIFO search on one rank, cpu only (the reference)
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/hd.hpp"

namespace tessera::bfs {

enum class Algorithm { direction_optimizing, top_down, bottom_up, edge_parallel, serial };

std::string_view to_string(Algorithm a);
Algorithm parse_algorithm(std::string_view text);  // throws std::invalid_argument
std::vector<std::string> algorithm_names();

// Beamer's switch: top-down -> bottom-up when the frontier grows and its edges exceed the
// unexplored edges / alpha; bottom-up -> top-down when it shrinks below n / beta vertices.
struct DirectionPolicy {
  double alpha = 14.0;
  double beta = 24.0;
};

// The direction of the next level under Beamer's rule, from the current one and the next
// level's frontier (vertices, edges), the frontier before it and the edges not yet explored.
// Bottom-up only while the frontier is growing: without that, the tail of a search, where
// few edges are left unexplored, swept every vertex bottom-up for a frontier of a few
// thousand. (The host loop and the GPU's own level loop both decide with this.)
TESSERA_HD bool next_bottom_up(bool bottom_up, std::int64_t vertices, std::int64_t previous_vertices,
                                      std::int64_t edges, std::int64_t unexplored_edges, double n, double alpha,
                                      double beta) {
  const bool growing = vertices > previous_vertices;
  if (!bottom_up && growing && static_cast<double>(edges) > static_cast<double>(unexplored_edges) / alpha) return true;
  if (bottom_up && !growing && static_cast<double>(vertices) < n / beta) return false;
  return bottom_up;
}

}  // namespace tessera::bfs
