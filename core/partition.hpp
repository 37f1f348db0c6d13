#pragma once
// Block partition of n items over `parts` owners: owner i gets a contiguous range, sizes differ
// by at most one (the first n % parts owners get one more). Used by every 1D distribution.
#include <algorithm>
#include <cstdint>

#include "core/hd.hpp"

namespace tessera {

struct Range {
  std::int64_t begin = 0;
  std::int64_t count = 0;
  TESSERA_HD std::int64_t end() const { return begin + count; }
};

TESSERA_HD Range block_range(std::int64_t n, int parts, int i) {
  const std::int64_t base = n / parts, extra = n % parts;
  const std::int64_t begin = i * base + (i < extra ? i : extra);
  return {begin, base + (i < extra ? 1 : 0)};
}

// The owner of item `index` under block_range(n, parts, .).
TESSERA_HD int block_owner(std::int64_t n, int parts, std::int64_t index) {
  const std::int64_t base = n / parts, extra = n % parts;
  const std::int64_t split = extra * (base + 1);  // items held by the larger blocks
  if (index < split) return static_cast<int>(index / (base + 1));
  return static_cast<int>(extra + (index - split) / (base > 0 ? base : 1));
}

}  // namespace tessera
