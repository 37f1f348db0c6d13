#pragma once
// How many blocks the split kernel gives each body's sources to (grid y): enough blocks that
// every SM gets nearly the same number and the last round of blocks on an SM is not mostly
// empty, with few blocks (each partial sum costs workspace and a read in the reduction).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "solvers/nbody/split_shapes.hpp"

namespace tessera::nbody {

inline constexpr int kMaxSplit = 256;
// The workspace holds split x n_targets partial sums; beyond this many the split stops growing
// (256 MiB in single precision).
inline constexpr std::int64_t kMaxPartials = std::int64_t{1} << 24;

// Expected fraction of the GPU's issue rate used by `blocks` equal blocks on `sm` SMs that
// hold `resident` blocks each: the busiest SM runs ceil(blocks / sm) of them in rounds of
// `resident`; a last round at most half full is counted as half a round (its blocks share the
// SM among fewer warps and run faster, but not in proportion).
inline double split_efficiency(std::int64_t blocks, int sm, int resident) {
  if (blocks <= 0 || sm <= 0 || resident <= 0) return 0;
  const double mean = static_cast<double>(blocks) / sm;
  const std::int64_t busiest = (blocks + sm - 1) / sm;
  const std::int64_t rounds = (busiest + resident - 1) / resident;
  const double last = static_cast<double>(busiest - (rounds - 1) * resident) / resident;
  return (mean / resident) / (static_cast<double>(rounds - 1) + std::max(last, 0.5));
}

// The smallest split within 2% of the best one up to the limits: at most kMaxSplit, partial
// sums within kMaxPartials, and at least one full tile of sources per block.
inline int choose_split(std::int64_t n_targets, std::int64_t n_sources, int sm, int threads, int bodies_per_thread,
                        int resident) {
  const std::int64_t groups = (std::max<std::int64_t>(n_targets, 1) + std::int64_t{threads} * bodies_per_thread - 1) /
                              (std::int64_t{threads} * bodies_per_thread);
  const std::int64_t by_sources = n_sources / split_tile(threads);
  const std::int64_t by_memory = kMaxPartials / std::max<std::int64_t>(n_targets, 1);
  const int most = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>({kMaxSplit, by_sources, by_memory})));
  double best = 0;
  for (int s = 1; s <= most; ++s) best = std::max(best, split_efficiency(groups * s, sm, resident));
  for (int s = 1; s <= most; ++s)
    if (split_efficiency(groups * s, sm, resident) >= 0.98 * best) return s;
  return 1;
}

}  // namespace tessera::nbody
