#pragma once
// The serial textbook BFS (one FIFO queue) on a whole graph held by one process: the
// reference every other search is compared with, and the `serial` algorithm of the solver
// on one rank.
#include <cstdint>

#include "solvers/bfs/graph.hpp"
#include "solvers/bfs/tree.hpp"

namespace tessera::bfs {

// `graph` must hold every vertex (one rank). Levels are unique; parents are the first
// discoverer in queue order.
BfsTree serial_bfs(const LocalGraph& graph, std::int64_t root);

}  // namespace tessera::bfs
