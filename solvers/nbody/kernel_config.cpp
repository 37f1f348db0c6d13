// Launch shapes for the GPU force kernels: validation and the automatic choice. Host code, so
// the choice is unit-tested without a GPU.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "solvers/nbody/forces.hpp"
#include "solvers/nbody/split_efficiency.hpp"
#include "solvers/nbody/split_shapes.hpp"

namespace tessera::nbody {
namespace {

bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::string_view to_string(KernelVariant v) {
  switch (v) {
    case KernelVariant::automatic: return "auto";
    case KernelVariant::tiled: return "tiled";
    case KernelVariant::seed_naive: return "seed-naive";
    case KernelVariant::seed_atomic: return "seed-atomic";
    case KernelVariant::split: return "split";
  }
  return "?";
}

KernelVariant parse_kernel_variant(std::string_view text) {
  if (text == "auto") return KernelVariant::automatic;
  if (text == "tiled") return KernelVariant::tiled;
  if (text == "seed-naive") return KernelVariant::seed_naive;
  if (text == "seed-atomic") return KernelVariant::seed_atomic;
  if (text == "split") return KernelVariant::split;
  throw InputError(fmt::format("unknown N-body kernel '{}' (auto, tiled, split, seed-naive, seed-atomic)", text));
}

std::string KernelConfig::describe() const {
  if (variant == KernelVariant::automatic) return "auto";
  if (variant == KernelVariant::tiled)
    return fmt::format("tiled g{} s{} b{}", group, split, bodies_per_thread);
  if (variant == KernelVariant::split)
    return fmt::format("split g{} s{} b{} u{} m{}", group, split, bodies_per_thread, unroll, min_blocks);
  if (variant == KernelVariant::seed_naive) return fmt::format("seed-naive block {}", group);
  return fmt::format("seed-atomic block {} stride {}", group, split);
}

KernelConfig parse_kernel_config(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char ch : std::string(text) + " ") {
    if (ch == ':' || std::isspace(static_cast<unsigned char>(ch))) {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += ch;
    }
  }
  if (words.empty()) throw InputError("an empty N-body kernel shape");
  KernelConfig c;
  c.variant = parse_kernel_variant(words[0]);
  for (std::size_t k = 1; k < words.size(); ++k) {
    const std::string& w = words[k];
    int* field = nullptr;
    switch (w[0]) {
      case 'g': field = &c.group; break;
      case 's': field = &c.split; break;
      case 'b': field = &c.bodies_per_thread; break;
      case 'u': field = &c.unroll; break;
      case 'm': field = &c.min_blocks; break;
      default: break;
    }
    const std::string digits = w.substr(1);
    if (!field || digits.empty() || digits.size() > 6 ||
        !std::all_of(digits.begin(), digits.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }))
      throw InputError(fmt::format("N-body kernel shape '{}': '{}' is not g<threads>, s<split>, b<bodies per "
                                   "thread>, u<unroll> or m<min blocks>", text, w));
    *field = std::stoi(digits);
  }
  return c;
}

std::int64_t partials_needed(const KernelConfig& c, std::int64_t n_targets) {
  return c.variant == KernelVariant::split && c.split > 1 ? static_cast<std::int64_t>(c.split) * n_targets : 0;
}

// Registers: a thread keeps 7 values per body it owns (position, acceleration, potential)
// plus the unrolled pair temporaries; these caps keep every shape under the register file
// (the kernels declare the same caps in __launch_bounds__).
int max_block_threads(int bodies_per_thread, bool double_precision) {
  const int base = bodies_per_thread >= 4 ? 256 : bodies_per_thread == 2 ? 512 : 1024;
  return double_precision ? base / 2 : base;
}

std::string check_config(const KernelConfig& c, bool double_precision) {
  if (c.variant != KernelVariant::split && (c.unroll != 0 || c.min_blocks != 0))
    return "unroll and min blocks choose among the split kernel's shapes only";
  switch (c.variant) {
    case KernelVariant::automatic:
      return "kernel auto must be resolved (resolve_config) before it runs";
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
    case KernelVariant::split: {
      if (c.split < 1 || c.split > kMaxSplit) return fmt::format("the split must be 1..{}, not {}", kMaxSplit, c.split);
      for (const SplitShape& s : split_shapes())
        if (s.double_precision == double_precision && s.bodies_per_thread == c.bodies_per_thread &&
            s.threads == c.group && s.unroll == c.unroll && s.min_blocks == c.min_blocks)
          return {};
      return fmt::format("no compiled split shape g{} b{} u{} m{} in {} (see split_shapes.hpp)", c.group,
                         c.bodies_per_thread, c.unroll, c.min_blocks, double_precision ? "double" : "single");
    }
  }
  return "unknown kernel";
}

KernelConfig default_kernel(std::int64_t n_targets, bool double_precision) {
  if (!double_precision && n_targets >= kSplitFromTargets) return KernelConfig{KernelVariant::split};
  return KernelConfig{KernelVariant::tiled};
}

// The choice, for an H100-class GPU (S SMs):
//  - kernel (auto): default_kernel, by the targets of the launch (forces.hpp says why).
//  - split kernel: the first compiled shape that agrees with the request (split_shapes.hpp
//    lists the measured winner first), its split from choose_split (split_efficiency.hpp).
//  The tiled kernel's shape:
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
  if (r.variant == KernelVariant::automatic) {
    if (r.group || r.split || r.bodies_per_thread || r.unroll || r.min_blocks)
      throw std::invalid_argument(fmt::format(
          "N-body kernel shape: kernel auto takes no shape numbers (g{} s{} b{} u{} m{}); name the kernel (tiled or "
          "split) to give a shape", r.group, r.split, r.bodies_per_thread, r.unroll, r.min_blocks));
    r = default_kernel(n_targets, double_precision);
  }
  switch (r.variant) {
    case KernelVariant::automatic: break;  // replaced above
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
    case KernelVariant::split: {
      // The shape: the first compiled one that agrees with every number given.
      for (const SplitShape& s : split_shapes()) {
        if (s.double_precision != double_precision) continue;
        if ((r.bodies_per_thread && r.bodies_per_thread != s.bodies_per_thread) || (r.group && r.group != s.threads) ||
            (r.unroll && r.unroll != s.unroll) || (r.min_blocks && r.min_blocks != s.min_blocks))
          continue;
        r.bodies_per_thread = s.bodies_per_thread;
        r.group = s.threads;
        r.unroll = s.unroll;
        r.min_blocks = s.min_blocks;
        break;
      }
      if (r.split == 0 && r.group > 0 && r.bodies_per_thread > 0 && r.min_blocks > 0)
        r.split = choose_split(n, n_sources, static_cast<int>(sm), r.group, r.bodies_per_thread, r.min_blocks);
      break;
    }
  }
  const std::string problem = check_config(r, double_precision);
  if (!problem.empty()) throw std::invalid_argument(fmt::format("N-body kernel shape: {}", problem));
  return r;
}

}  // namespace tessera::nbody
