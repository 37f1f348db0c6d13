#include "solvers/bfs/roots.hpp"

#include <algorithm>

#include "comm/collectives.hpp"
#include "solvers/bfs/random.hpp"

namespace tessera::bfs {

std::vector<std::int64_t> sample_roots(comm::Context& ctx, const LocalGraph& graph, int count, std::uint64_t seed) {
  const std::int64_t n = graph.vertices();
  const Permutation order = Permutation::make(static_cast<std::uint64_t>(n), derive_key(seed, 4));
  std::vector<std::int64_t> roots;
  // Batches of candidates; each owner says which of its own qualify, a max-allreduce merges.
  const std::int64_t batch = 4096;
  std::vector<std::int32_t> ok(static_cast<std::size_t>(batch));
  for (std::int64_t first = 0; first < n && static_cast<int>(roots.size()) < count; first += batch) {
    const std::int64_t size = std::min(batch, n - first);
    std::fill(ok.begin(), ok.end(), 0);
    for (std::int64_t i = 0; i < size; ++i) {
      const auto v = static_cast<std::int64_t>(order(static_cast<std::uint64_t>(first + i)));
      if (graph.owns(v) && graph.degree(v - graph.begin) > 0) ok[i] = 1;
    }
    comm::allreduce_inplace(ctx, std::span<std::int32_t>(ok.data(), static_cast<std::size_t>(size)), comm::Op::max);
    for (std::int64_t i = 0; i < size && static_cast<int>(roots.size()) < count; ++i)
      if (ok[i]) roots.push_back(static_cast<std::int64_t>(order(static_cast<std::uint64_t>(first + i))));
  }
  return roots;
}

}  // namespace tessera::bfs
