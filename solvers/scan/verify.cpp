#include "solvers/scan/verify.hpp"

namespace tessera::scan {

std::vector<Range> sample_windows(std::int64_t global_n, Range block, int windows) {
  const std::int64_t w = std::min(kVerifyWindow, global_n);
  std::vector<Range> global;
  // Each rank's first and last elements: where a wrong rank offset or a wrong last tile shows.
  global.push_back({block.begin, std::min(w, block.count)});
  global.push_back({std::max(block.begin, block.end() - w), std::min(w, block.count)});
  for (int i = 0; i < windows; ++i) {
    const std::uint64_t span = static_cast<std::uint64_t>(global_n - w + 1);
    const auto start = static_cast<std::int64_t>(span > 0 ? mix64(0x5CA7ull + static_cast<std::uint64_t>(i)) % span : 0);
    global.push_back({start, w});
  }
  std::vector<Range> local;
  for (const Range& g : global) {
    const std::int64_t b = std::max(g.begin, block.begin), e = std::min(g.end(), block.end());
    if (b < e) local.push_back({b - block.begin, e - b});
  }
  std::sort(local.begin(), local.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  std::vector<Range> merged;
  for (const Range& r : local) {
    if (!merged.empty() && r.begin <= merged.back().end())
      merged.back().count = std::max(merged.back().end(), r.end()) - merged.back().begin;
    else
      merged.push_back(r);
  }
  return merged;
}

}  // namespace tessera::scan
