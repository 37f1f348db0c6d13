#include "solvers/bfs/reference.hpp"

#include <stdexcept>

namespace tessera::bfs {

BfsTree serial_bfs(const LocalGraph& g, std::int64_t root) {
  if (g.begin != 0 || g.count != g.vertices()) throw std::logic_error("serial_bfs needs the whole graph on one rank");
  const std::int64_t n = g.vertices();
  BfsTree t;
  t.parent.assign(static_cast<std::size_t>(n), -1);
  t.level.assign(static_cast<std::size_t>(n), -1);
  std::vector<std::int64_t> queue;
  queue.reserve(static_cast<std::size_t>(n));
  t.parent[root] = root;
  t.level[root] = 0;
  queue.push_back(root);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int64_t u = queue[head];
    for (std::int64_t j = g.offsets[u]; j < g.offsets[u + 1]; ++j) {
      const std::int64_t w = g.columns[j];
      if (t.level[w] >= 0) continue;
      t.level[w] = t.level[u] + 1;
      t.parent[w] = u;
      queue.push_back(w);
    }
  }
  return t;
}

}  // namespace tessera::bfs
