#pragma once
// The search algorithms a run or a benchmark can pick.
//   direction_optimizing  top-down while the frontier is small, bottom-up while it is large
//                         (Beamer's alpha/beta switch), the default
//   top_down              top-down every level (frontier queue, load-balanced edge expansion)
//   bottom_up             bottom-up every level after the root (frontier bitmap)
//   edge_parallel         the seed's baseline: every level scans every edge, O(levels * E)
//   serial                the textbook FIFO search on one rank, cpu only (the reference)
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace tessera::bfs
