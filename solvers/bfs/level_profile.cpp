#include "solvers/bfs/level_profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <span>
#include <string_view>

#include "comm/collectives.hpp"
#include "core/env.hpp"

namespace tessera::bfs {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

bool LevelProfile::requested() {
  return *env::get_boolean("TESSERA_BFS_PROFILE");
}

void LevelProfile::start_search() {
  if (!on_) return;
  levels_.clear();
  clocks_.clear();
  start_ = now_seconds();
  last_ = 0;
}

void LevelProfile::begin_level(int level, bool bottom_up, std::int64_t frontier_vertices,
                               std::int64_t frontier_edges) {
  if (!on_) return;
  levels_.push_back({level, bottom_up, frontier_vertices, frontier_edges, {}});
}

void LevelProfile::mark(Phase phase, SearchBackend& k) {
  if (!on_ || levels_.empty()) return;
  k.synchronize();
  const double t = now_seconds() - start_;
  levels_.back().ms[phase] += (t - last_) * 1e3;
  last_ = t;
}

std::string LevelProfile::report(std::int64_t root, double seconds, int ranks) const {
  if (!clocks_.empty()) return report_clocks(root, seconds, ranks);
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

void LevelProfile::record_clocks(comm::Context& ctx, const std::vector<LevelClock>& mine) {
  // What differs by rank travels as doubles, kFields per level and rank; the rest (level,
  // direction, frontier) is the same on every rank, which ran the same levels.
  constexpr std::size_t kFields = 7;
  const auto numbers = [](LevelClock& c) {
    return std::array<double*, kFields>{&c.steps,    &c.shares[0], &c.shares[1], &c.waits[0],
                                        &c.waits[1], &c.conclude,  &c.start};
  };
  const auto ranks = static_cast<std::size_t>(ctx.size());
  const auto levels = static_cast<std::size_t>(comm::allreduce(ctx, static_cast<std::int64_t>(mine.size()), comm::Op::max));
  // The levels' starts count from rank 0's search start (the GPUs' clocks agree to about a
  // microsecond where the driver keeps them in step with the host's).
  const double start0 = comm::broadcast_value(ctx, mine.empty() ? 0.0 : mine.front().start);
  std::vector<double> all(levels * ranks * kFields, 0.0);
  for (std::size_t l = 0; l < mine.size(); ++l) {
    LevelClock c = mine[l];
    c.start -= start0;
    double* f = all.data() + (l * ranks + static_cast<std::size_t>(ctx.rank())) * kFields;
    for (double* x : numbers(c)) *f++ = *x;
  }
  comm::allreduce_inplace(ctx, std::span<double>(all), comm::Op::sum);
  clocks_.assign(levels * ranks, LevelClock{});
  for (std::size_t i = 0; i < clocks_.size(); ++i) {
    LevelClock& c = clocks_[i];
    if (i / ranks < mine.size()) c = mine[i / ranks];
    const double* f = all.data() + i * kFields;
    for (double* x : numbers(c)) *x = *f++;
  }
  clocked_ranks_ = static_cast<int>(ranks);
}

std::string LevelProfile::report_clocks(std::int64_t root, double seconds, int ranks) const {
  const auto levels = clocks_.size() / static_cast<std::size_t>(clocked_ranks_);
  // Rank by rank: "a / b / ..." of one field.
  const auto per_rank = [&](std::size_t level, auto field) {
    std::string text;
    for (int r = 0; r < clocked_ranks_; ++r)
      text += fmt::format("{}{:.3f}", r ? " / " : "", field(clocks_[level * clocked_ranks_ + r]));
    return text;
  };
  std::vector<double> steps(clocked_ranks_, 0.0), shares(clocked_ranks_, 0.0);
  double conclude = 0;
  for (std::size_t i = 0; i < clocks_.size(); ++i) {
    const LevelClock& l = clocks_[i];
    steps[i % clocked_ranks_] += l.steps;
    shares[i % clocked_ranks_] += l.shares[0] + l.shares[1];
    if (i % clocked_ranks_ == 0) conclude += l.conclude;
  }
  std::string out = fmt::format(
      "bfs profile, root {}, {} rank(s): {:.3f} ms, {} levels on the GPU (each GPU's clock; per rank a / b / ...): "
      "steps {:.3f} ms, shares {:.3f} ms; rank 0's decisions {:.3f} ms",
      root, ranks, seconds * 1e3, levels, fmt::join(steps, " / "), fmt::join(shares, " / "), conclude);
  for (std::size_t l = 0; l < levels; ++l) {
    const LevelClock& c = clocks_[l * clocked_ranks_];
    out += fmt::format("\n  level {:2d} {}: frontier {:>11} vertices {:>13} edges | steps {} ms", c.level,
                       c.bottom_up ? "bottom-up" : "top-down ", c.vertices, c.edges,
                       per_rank(l, [](const LevelClock& x) { return x.steps; }));
    if (clocked_ranks_ > 1)
      out += fmt::format(" | shares {} (waiting {}) and {} (waiting {}) ms",
                         per_rank(l, [](const LevelClock& x) { return x.shares[0]; }),
                         per_rank(l, [](const LevelClock& x) { return x.waits[0]; }),
                         per_rank(l, [](const LevelClock& x) { return x.shares[1]; }),
                         per_rank(l, [](const LevelClock& x) { return x.waits[1]; }));
    out += fmt::format(" | decision {:.3f} ms", c.conclude);
    if (clocked_ranks_ > 1)
      out += fmt::format(" | starts {} ms after rank 0's search", per_rank(l, [](const LevelClock& x) { return x.start; }));
  }
  return out;
}

}  // namespace tessera::bfs
