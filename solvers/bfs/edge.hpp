#pragma once
// One input edge (as generated or read): global 0-based endpoints. The graph is undirected:
// (u, v) joins both ways; self-loops and repeats are kept here and removed by the CSR build.
#include <cstdint>

namespace tessera::bfs {

struct Edge {
  std::int64_t u = 0;
  std::int64_t v = 0;
};

}  // namespace tessera::bfs
