// Launch shapes for the GPU force kernels: validation and the automatic choice. Host code, so
// the choice is unit-tested without a GPU.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#include "solvers/nbody/forces.hpp"

namespace tessera::nbody {
namespace {

bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::string_view to_string(KernelVariant v) {
  switch (v) {
    case KernelVariant::tiled: return "tiled";
    case KernelVariant::seed_naive: return "seed-naive";
    case KernelVariant::seed_atomic: return "seed-atomic";
  }
  return "?";
}

KernelVariant parse_kernel_variant(std::string_view text) {
  if (text == "tiled") return KernelVariant::tiled;
  if (text == "seed-naive") return KernelVariant::seed_naive;
  if (text == "seed-atomic") return KernelVariant::seed_atomic;
  throw InputError(fmt::format("unknown N-body kernel '{}' (tiled, seed-naive, seed-atomic)", text));
}

std::string KernelConfig::describe() const {
  if (variant == KernelVariant::tiled)
    return fmt::format("tiled g{} s{} b{}", group, split, bodies_per_thread);
  if (variant == KernelVariant::seed_naive) return fmt::format("seed-naive block {}", group);
  return fmt::format("seed-atomic block {} stride {}", group, split);
}

// Registers: a thread keeps 7 values per body it owns (position, acceleration, potential)
// plus the unrolled pair temporaries; these caps keep every shape under the register file
// (the kernels declare the same caps in __launch_bounds__).
int max_block_threads(int bodies_per_thread, bool double_precision) {
  const int base = bodies_per_thread >= 4 ? 256 : bodies_per_thread == 2 ? 512 : 1024;
  return double_precision ? base / 2 : base;
}

std::string check_config(const KernelConfig& c, bool double_precision) {
  switch (c.variant) {
    case KernelVariant::tiled: {
      if (c.bodies_per_thread != 1 && c.bodies_per_thread != 2 && c.bodies_per_thread != 4)
        return fmt::format("bodies per thread must be 1, 2 or 4, not {}", c.bodies_per_thread);
      if (c.group < 32 || c.group % 32 != 0)
        return fmt::format("the group (threads per body slice) must be a multiple of 32, not {}", c.group);
      if (!power_of_two(c.split) || c.split > 32)
        return fmt::format("the split must be a power of two up to 32, not {}", c.split);
      if (c.bodies_per_thread == 4 && c.split != 1)
        return fmt::format("4 bodies per thread take no split (split 1, not {})", c.split);
      const int cap = max_block_threads(c.bodies_per_thread, double_precision);
      if (c.group * c.split > cap)
        return fmt::format("group x split = {} threads per block exceeds {} for {} bod{} per thread ({})",
                           c.group * c.split, cap, c.bodies_per_thread, c.bodies_per_thread == 1 ? "y" : "ies",
                           double_precision ? "double" : "single");
      return {};
    }
    case KernelVariant::seed_naive:
      if (c.group < 1 || c.group > 1024) return fmt::format("block size must be 1..1024, not {}", c.group);
      return {};
    case KernelVariant::seed_atomic:
      if (c.group < 1 || c.group > 1024) return fmt::format("block size must be 1..1024, not {}", c.group);
      if (c.split < 1 || c.split > 4096) return fmt::format("block stride must be 1..4096, not {}", c.split);
      return {};
  }
  return "unknown kernel";
}

// The choice, for an H100-class GPU (S SMs):
//  - bodies per thread: 4 from 2048 S targets, 2 from 512 S, else 1. More bodies per thread
//    share each shared-memory load (13 + 1/B instructions per interaction) but need N/B
//    threads to fill the GPU.
//  - group: the largest of 256, 128, 64, 32 threads that still gives 2 blocks per SM.
//  - split: doubled while the GPU has fewer than 16 warps per SM, a block has room and each
//    thread keeps at least 256 sources (small N: 4096 bodies become 128 blocks of 16 warps).
KernelConfig resolve_config(KernelConfig r, std::int64_t n_targets, std::int64_t n_sources, int sm_count,
                            bool double_precision) {
  const std::int64_t sm = std::max(sm_count, 1);
  const std::int64_t n = std::max<std::int64_t>(n_targets, 1);
  switch (r.variant) {
    case KernelVariant::seed_naive:
      if (r.group == 0) r.group = 32;  // the seed's BLOCK_SIZE
      r.split = 1;
      r.bodies_per_thread = 1;
      break;
    case KernelVariant::seed_atomic:
      if (r.group == 0) r.group = 128;  // the seed's best: BLOCK_SIZE 128, BLOCK_STRIDE 32
      if (r.split == 0) r.split = 32;
      r.bodies_per_thread = 1;
      break;
    case KernelVariant::tiled: {
      if (r.bodies_per_thread == 0) r.bodies_per_thread = n >= 2048 * sm ? 4 : n >= 512 * sm ? 2 : 1;
      const int b = r.bodies_per_thread;
      const int cap = max_block_threads(b, double_precision);
      if (r.group == 0) {
        r.group = 32;
        for (int g : {256, 128, 64}) {
          if (g <= cap && ceil_div(n, std::int64_t{g} * b) >= 2 * sm) {
            r.group = g;
            break;
          }
        }
      }
      if (r.split == 0) {
        r.split = 1;
        if (b == 4) break;  // large N: no split (and 4 bodies per thread take none)
        const std::int64_t blocks = ceil_div(n, std::int64_t{r.group} * b);
        while (r.split < 32 && r.group * r.split * 2 <= cap && blocks * r.group * r.split / 32 < 16 * sm &&
               n_sources / (2 * r.split) >= 256)
          r.split *= 2;
      }
      break;
    }
  }
  const std::string problem = check_config(r, double_precision);
  if (!problem.empty()) throw std::invalid_argument(fmt::format("N-body kernel shape: {}", problem));
  return r;
}

}  // namespace tessera::nbody
