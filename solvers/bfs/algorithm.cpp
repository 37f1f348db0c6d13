#include "solvers/bfs/algorithm.hpp"

#include <stdexcept>

namespace tessera::bfs {

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::direction_optimizing: return "direction_optimizing";
    case Algorithm::top_down: return "top_down";
    case Algorithm::bottom_up: return "bottom_up";
    case Algorithm::edge_parallel: return "edge_parallel";
    case Algorithm::serial: return "serial";
  }
  return "?";
}

std::vector<std::string> algorithm_names() {
  return {"direction_optimizing", "top_down", "bottom_up", "edge_parallel", "serial"};
}

Algorithm parse_algorithm(std::string_view text) {
  for (Algorithm a : {Algorithm::direction_optimizing, Algorithm::top_down, Algorithm::bottom_up,
                      Algorithm::edge_parallel, Algorithm::serial})
    if (to_string(a) == text) return a;
  throw std::invalid_argument("unknown BFS algorithm '" + std::string(text) + "'");
}

}  // namespace tessera::bfs
