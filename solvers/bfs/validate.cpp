#include "solvers/bfs/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "comm/collectives.hpp"

namespace tessera::bfs {
namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

// What is wrong at vertex g for `check` (g owned by this rank; global arrays on the host).
std::string describe(const LocalGraph& graph, const BfsTree& t, int check, std::int64_t g, std::int64_t root) {
  const std::int64_t n = graph.vertices();
  const std::int64_t p = t.parent[g];
  const std::int32_t l = t.level[g];
  const std::int64_t v = g - graph.begin;
  const std::span<const std::int64_t> row(graph.columns.data() + graph.offsets[v],
                                          static_cast<std::size_t>(graph.degree(v)));
  auto level_of = [&](std::int64_t x) { return x >= 0 && x < n ? t.level[x] : -1; };
  switch (check) {
    case kTree:
      if (g == root) return fmt::format("the root {} has parent {}, not itself", g, p);
      if (p < 0 || p >= n) return fmt::format("vertex {} has parent {}, outside [0, {})", g, p, n);
      if (p == g) return fmt::format("vertex {} (not the root) is its own parent", g);
      if (t.parent[p] == -1) return fmt::format("vertex {} has parent {}, which was not reached", g, p);
      return fmt::format("the parent chain of vertex {} (parent {}) does not reach the root {} (a cycle)", g, p, root);
    case kLevels:
      if (g == root) return fmt::format("the root {} has level {}, not 0", g, l);
      if ((p == -1) != (l == -1)) return fmt::format("vertex {} has parent {} but level {}", g, p, l);
      return fmt::format("vertex {} has level {} but its parent {} has level {}", g, l, p, level_of(p));
    case kEdgeLevels:
      for (std::int64_t w : row)
        if (l >= 0 && t.level[w] >= 0 && std::abs(l - t.level[w]) > 1)
          return fmt::format("edge ({}, {}) joins levels {} and {}", g, w, l, t.level[w]);
      break;
    case kSpanning:
      for (std::int64_t w : row)
        if ((p != -1) != (t.parent[w] != -1))
          return fmt::format("edge ({}, {}) joins a reached and an unreached vertex (parents {} and {})", g, w, p,
                             t.parent[w]);
      break;
    case kParentEdges: return fmt::format("vertex {} has parent {}, but ({}, {}) is not an edge", g, p, g, p);
  }
  return fmt::format("vertex {}", g);
}

}  // namespace

std::string_view check_name(int check) {
  switch (check) {
    case kTree: return "tree (parents form a tree rooted at the root)";
    case kLevels: return "levels (tree edges join consecutive levels)";
    case kEdgeLevels: return "edge levels (every edge joins levels at most one apart)";
    case kSpanning: return "spanning (the tree covers the root's component)";
    case kParentEdges: return "parent edges (every tree edge is a graph edge)";
  }
  return "?";
}

ValidationReport validate(SearchDriver& driver, std::int64_t root) {
  comm::Context& ctx = driver.context();
  driver.gather_tree();
  const CheckCounts mine = driver.backend().check(root);
  ValidationReport report;
  report.root = root;
  std::array<std::int64_t, kChecks> first = mine.first;
  report.violations = mine.count;
  comm::allreduce_inplace(ctx, std::span<std::int64_t>(report.violations), comm::Op::sum);
  comm::allreduce_inplace(ctx, std::span<std::int64_t>(first), comm::Op::min);
  if (report.ok()) return report;

  // Each failed check is described by the owner of its smallest offending vertex.
  const LocalGraph& graph = driver.graph();
  BfsTree t;
  t.parent.resize(static_cast<std::size_t>(graph.vertices()));
  t.level.resize(static_cast<std::size_t>(graph.vertices()));
  driver.backend().download_global(t.parent, t.level);
  std::string text;
  for (int c = 0; c < kChecks; ++c)
    if (report.violations[c] > 0 && first[c] != kNone && graph.owns(first[c]))
      text += fmt::format("\n  check {} {}: {} violation(s), e.g. {}", c + 1, check_name(c), report.violations[c],
                          describe(graph, t, c, first[c], root));
  // Rank 0 puts the lines (one per failed check, from whichever rank owns its example) in
  // the order of the checks.
  std::vector<std::string> lines;
  for (const auto& part : comm::gather_text(ctx, text)) {
    std::size_t at = 0;
    while ((at = part.find('\n', at)) != std::string::npos) {
      const std::size_t end = part.find('\n', at + 1);
      lines.push_back(part.substr(at, end == std::string::npos ? std::string::npos : end - at));
      at = end == std::string::npos ? part.size() : end;
    }
  }
  std::sort(lines.begin(), lines.end());
  std::string message = fmt::format("BFS validation failed for root {}:", root);
  for (const auto& line : lines) message += line;
  comm::broadcast(ctx, message);
  report.message = message;
  return report;
}

}  // namespace tessera::bfs
