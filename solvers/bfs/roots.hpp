#pragma once
// Graph500 search keys: `count` distinct roots, each with at least one neighbour other than
// itself, drawn at random but deterministically from a seed: candidates are the vertices in
// the order of a random permutation of [0, n) (random.hpp), so no vertex is drawn twice and,
// when fewer than `count` vertices qualify, every one of them is found.
#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "solvers/bfs/graph.hpp"

namespace tessera::bfs {

// Collective; the same roots on every rank for any number of ranks.
std::vector<std::int64_t> sample_roots(comm::Context& ctx, const LocalGraph& graph, int count, std::uint64_t seed);

}  // namespace tessera::bfs
