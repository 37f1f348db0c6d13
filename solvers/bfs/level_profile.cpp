#include "solvers/bfs/level_profile.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string_view>

namespace tessera::bfs {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

bool LevelProfile::requested() {
  const char* text = std::getenv("TESSERA_BFS_PROFILE");
  return text && *text && std::string_view(text) != "0";
}

void LevelProfile::start_search() {
  if (!on_) return;
  levels_.clear();
  start_ = now_seconds();
  last_ = 0;
}

void LevelProfile::begin_level(int level, bool bottom_up, std::int64_t frontier_vertices,
                               std::int64_t frontier_edges) {
  if (!on_) return;
  levels_.push_back({level, bottom_up, frontier_vertices, frontier_edges, {}});
}

void LevelProfile::mark(Phase phase, SearchKernels& k) {
  if (!on_ || levels_.empty()) return;
  k.synchronize();
  const double t = now_seconds() - start_;
  levels_.back().ms[phase] += (t - last_) * 1e3;
  last_ = t;
}

std::string LevelProfile::report(std::int64_t root, double seconds, int ranks) const {
  double total[kPhases] = {};
  for (const Level& l : levels_)
    for (int p = 0; p < kPhases; ++p) total[p] += l.ms[p];
  std::string out = fmt::format(
      "bfs profile, root {}, {} rank(s): {:.3f} ms, {} levels; kernels {:.3f} ms, exchange {:.3f} ms, counts {:.3f} ms "
      "(rank 0's view, each phase waited for)",
      root, ranks, seconds * 1e3, levels_.size(), total[kKernels], total[kExchange], total[kCounts]);
  for (const Level& l : levels_)
    out += fmt::format("\n  level {:2d} {}: frontier {:>11} vertices {:>13} edges | kernels {:8.3f} ms | exchange "
                       "{:8.3f} ms | counts {:8.3f} ms",
                       l.level, l.bottom_up ? "bottom-up" : "top-down ", l.vertices, l.edges, l.ms[kKernels],
                       l.ms[kExchange], l.ms[kCounts]);
  return out;
}

}  // namespace tessera::bfs
