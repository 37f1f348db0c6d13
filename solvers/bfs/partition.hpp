#pragma once
// The 1D vertex partition of the BFS: each rank owns one contiguous block of vertices, cut on
// multiples of 64 (block_range over 64-vertex words), so that every rank's share of a bitmap
// is whole words and the bottom-up frontier is exchanged as the concatenation of the ranks'
// words. Ids are global and 0-based everywhere; only the owner keeps a vertex's adjacency.
#include <cstdint>

#include "core/hd.hpp"
#include "core/partition.hpp"

namespace tessera::bfs {

struct VertexPartition {
  std::int64_t n = 0;  // vertices in the graph
  int parts = 1;       // ranks

  TESSERA_HD std::int64_t words() const { return (n + 63) / 64; }
  TESSERA_HD Range range(int r) const {
    const Range w = block_range(words(), parts, r);
    const std::int64_t begin = w.begin * 64 < n ? w.begin * 64 : n;
    const std::int64_t end = w.end() * 64 < n ? w.end() * 64 : n;
    return {begin, end - begin};
  }
  TESSERA_HD int owner(std::int64_t v) const { return block_owner(words(), parts, v / 64); }
};

}  // namespace tessera::bfs
