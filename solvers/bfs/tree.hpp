#pragma once
// What a search produces for one root, in the global layout: parent[v] (the root is its own
// parent, -1 where v was not reached) and level[v] (hops from the root, -1 where not reached).
#include <cstdint>
#include <vector>

namespace tessera::bfs {

struct BfsTree {
  std::vector<std::int64_t> parent;
  std::vector<std::int32_t> level;
};

}  // namespace tessera::bfs
