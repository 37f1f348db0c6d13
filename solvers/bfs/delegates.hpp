#pragma once
// Delegated hubs: the rows of the highest-degree vertices, split by the owner of each edge's
// other end.
//
// With a 1D partition, a top-down level over a frontier of hubs (the second level of most
// Kronecker searches: a few thousand vertices with tens of millions of edges) is done by
// whichever ranks own those hubs: one rank may expand 1.4x the edges of another, and half of
// every rank's edges become (vertex, parent) pairs for the other ranks to claim. With
// delegates, every rank knows the frontier's hubs (a bitmap of them travels with the level's
// last share) and expands, for each, the hub's edges to the vertices it owns itself: the work
// splits with the vertex partition (even, since Graph500 permutes the labels) and every claim
// is local. A hub's owner then skips the hub's own row in the top-down scan. The graph is
// undirected, so rank r finds "the edges of hub h to my vertices" in its own rows: the
// owned vertices v with h in row(v).
//
// A hub is a vertex of degree >= threshold (the degree without repeats or self-loops), the
// same rule on every rank. Hubs are numbered in the order of their ids, so the hubs of each
// rank are consecutive; the hub bitmap gives each rank whole 64-bit words (a rank's hubs start
// on a word), so a rank writes its words and copies them to the others like the frontier's.
#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "solvers/bfs/graph.hpp"

namespace tessera::bfs {

struct Delegates {
  std::int64_t threshold = 0;              // the hub degree; 0: no delegates
  std::vector<std::int64_t> hubs;          // global ids of every hub, ascending
  std::vector<std::int64_t> first;         // rank r's hubs are hubs[first[r], first[r + 1])
  std::vector<std::int64_t> word_first;    // rank r's words of the hub bitmap: [word_first[r], word_first[r + 1])
  // This rank's part of every hub's row: hub k's owned neighbours are targets[offsets[k],
  // offsets[k + 1]) (local ids, ascending).
  std::vector<std::int64_t> offsets;
  std::vector<std::uint32_t> targets;

  std::int64_t count() const { return static_cast<std::int64_t>(hubs.size()); }
  bool active() const { return !hubs.empty(); }
};

// Most hubs the automatic threshold allows: the hub bitmap (2048 words) then costs a few
// microseconds per level to pass and to list. (Kronecker scale 26 on 2 GPUs: 83682 hubs of
// degree >= 2048 measured within 1% of none, 17902 of degree >= 8192 up to 3% slower.)
inline constexpr std::int64_t kMaxAutoHubs = std::int64_t{1} << 17;
// The automatic threshold is at least this degree: below it a row is not worth balancing.
inline constexpr std::int64_t kMinAutoHubDegree = 256;

// Collective: the hub degree for `requested` (> 0: that degree; 0: no delegates; < 0: the
// smallest power of two >= kMinAutoHubDegree with at most kMaxAutoHubs vertices at or above it).
// With one rank, 0.
std::int64_t choose_hub_degree(comm::Context& ctx, const LocalGraph& graph, std::int64_t requested);

// Collective: the hubs of degree >= threshold and this rank's part of their rows (threshold 0:
// none). Local ids must fit 32 bits (the cuda backend's limit).
Delegates build_delegates(comm::Context& ctx, const LocalGraph& graph, std::int64_t threshold);

}  // namespace tessera::bfs
