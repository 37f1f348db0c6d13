#pragma once
// Force kernels on raw arrays: the accelerations (and optionally potentials) of a set of
// target bodies due to one block of source bodies. The ring (ring_forces.hpp) calls them once
// per block it holds; the benchmark and the tests call them directly.
//
// Both backends evaluate add_pair() (pair_force.hpp). Per target, sources are summed in a
// fixed order, so results never depend on timing (the seed-atomic baseline excepted).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/stream.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

// The GPU kernels. `tiled` and `split` are tessera's (both deterministic); the seeds' two are
// baselines, kept for `tessera bench nbody` and for comparison runs (they compute forces only,
// not potentials). `automatic` stands for the default rule (default_kernel) until
// resolve_config replaces it with one of the two.
enum class KernelVariant {
  automatic,    // "auto": tiled below kSplitFromTargets targets, split from there (single precision)
  tiled,        // shared-memory tiles, several bodies per thread, j-split reduced in shared memory
  seed_naive,   // one thread per body, sources read from global memory
  seed_atomic,  // shared tiles, BLOCK_STRIDE blocks per body, partial forces added with atomicAdd
  split,        // shared tiles, the j-range split over `split` blocks per body; partial sums in a
                // workspace, added in a fixed order by a second kernel (deterministic)
};
std::string_view to_string(KernelVariant v);
// "auto", "tiled", "split", "seed-naive", "seed-atomic"; InputError for anything else.
KernelVariant parse_kernel_variant(std::string_view text);

// Launch shape. Zeros mean "choose" (resolve_config). For `tiled`: a block is `split` groups of
// `group` threads (group a multiple of 32, so a warp never spans two groups); each thread owns
// `bodies_per_thread` targets; group s sums its own slice of every shared tile and the groups
// are added in shared memory in the order s = 0, 1, ... For the seeds, `group` is their
// BLOCK_SIZE and `split` their BLOCK_STRIDE. For `split`: `group` is the block size, `split`
// the number of blocks sharing each body's sources (grid y), and `unroll` (sources per step of
// the inner loop) and `min_blocks` (blocks per SM the registers are budgeted for) pick one of
// the compiled shapes (split_shapes.hpp).
struct KernelConfig {
  KernelVariant variant = KernelVariant::automatic;
  int group = 0;
  int split = 0;
  int bodies_per_thread = 0;
  int unroll = 0;      // split only
  int min_blocks = 0;  // split only

  int block_threads() const { return variant == KernelVariant::split ? group : group * split; }
  std::string describe() const;  // "tiled g128 s1 b4", "split g128 s3 b1 u16 m16", "auto"
};

// A shape written as describe() writes it, with spaces or ':' between the words
// ("split:g128:b1:u16:m16", "tiled g256 s1 b4", "seed-atomic"); missing numbers are 0
// (chosen by resolve_config). Throws InputError on unknown words.
KernelConfig parse_kernel_config(std::string_view text);

// The default rule, on the targets of one launch (a rank's own bodies: N / P on P ranks, since
// the ring's source blocks are the same size). Measured on an H100 (docs/nbody.md, "GPU
// kernels"): at 4K bodies every split shape is slower than the tiled kernel's automatic shape
// (1086 vs 1280 G interactions/s); the split kernel's first compiled shape (g256 b4 u8 m4) is
// faster from 16K on (1871 vs 1671 at 16K, 1990 vs 1807 at 64K, 2016 vs 1900 at 128K, 7% and
// 13% at 256K and 1M). Double precision keeps the tiled kernel (its split shapes are tested but
// not measured against it).
inline constexpr std::int64_t kSplitFromTargets = 16384;
// The request `automatic` stands for: {tiled} or {split}, zeros to be filled by resolve_config.
KernelConfig default_kernel(std::int64_t n_targets, bool double_precision);

// Fills the zeros of `requested` from the target count and the device's SM count (see
// docs/nbody.md, "GPU kernels"); `automatic` becomes default_kernel(n_targets), and takes no
// shape numbers (name the kernel to give a shape). Throws std::invalid_argument for an
// impossible shape.
KernelConfig resolve_config(KernelConfig requested, std::int64_t n_targets, std::int64_t n_sources, int sm_count,
                            bool double_precision);
// Why a requested shape is invalid ("" when it is fine): group not a multiple of 32, ...
std::string check_config(const KernelConfig& c, bool double_precision);
// The most threads a tiled block may have for `bodies_per_thread` (register budget).
int max_block_threads(int bodies_per_thread, bool double_precision);
// Vec4 entries of ForceArgs::partials that `c` (resolved) needs for n_targets: split x n_targets
// for the split kernel with split > 1, else 0.
std::int64_t partials_needed(const KernelConfig& c, std::int64_t n_targets);

// One force pass of `targets` from `sources` (both in the backend's memory).
template <class T>
struct ForceArgs {
  const Vec4<T>* targets = nullptr;  // x, y, z, m
  std::int64_t n_targets = 0;
  std::int64_t target_offset = 0;    // global index of targets[0] (self-exclusion in the potential)
  const Vec4<T>* sources = nullptr;
  std::int64_t n_sources = 0;
  std::int64_t source_offset = 0;
  Vec4<T>* acc = nullptr;            // out: G * sum (ax, ay, az), and -G * sum m/r in w when potential
  bool accumulate = false;           // acc += this block's sum (in that order), else acc = sum
  bool potential = false;            // also the potential (w); otherwise w is written as 0
  T G = 1;
  T eps2 = 0;                        // softening^2, at least min_softening2<T>()
  Vec4<T>* vel = nullptr;            // when set: vel += acc * kick_dt after this block (last block)
  T kick_dt = 0;
  Vec4<T>* partials = nullptr;       // device workspace of the split kernel (partials_needed entries)
  std::int64_t partials_capacity = 0;
  // > 0: every source has exactly this mass (w). The split kernel then sums the pull of unit
  // masses and multiplies by it once (one instruction fewer per interaction); the other
  // kernels read w as always. 0: masses differ (or are not known to be equal).
  T common_mass = 0;
};

// One pass of n bodies on themselves (targets = sources = x), forces into `acc`; the other
// fields keep their defaults for the caller to set.
template <class T>
ForceArgs<T> self_pass(const Vec4<T>* x, std::int64_t n, Vec4<T>* acc, T eps2) {
  ForceArgs<T> f;
  f.targets = f.sources = x;
  f.n_targets = f.n_sources = n;
  f.acc = acc;
  f.eps2 = eps2;
  return f;
}

// OpenMP reference, `threads` threads (the caller shares cores between node-local ranks).
template <class T>
void forces_cpu(const ForceArgs<T>& a, int threads);

// v += a * kick_dt; x += v * drift_dt, for n bodies (host memory).
template <class T>
void kick_drift_cpu(Vec4<T>* pos_mass, Vec4<T>* vel, const Vec4<T>* acc, std::int64_t n, T kick_dt, T drift_dt,
                    int threads);

#if defined(TESSERA_HAVE_CUDA)
// Queues the kernel of `config` (resolved) on `stream`. Device pointers. The seeds' kernels
// do not compute potentials: a pass with potential = true runs the tiled kernel instead.
template <class T>
void forces_cuda(const ForceArgs<T>& a, const KernelConfig& config, stream_t stream);

template <class T>
void kick_drift_cuda(Vec4<T>* pos_mass, Vec4<T>* vel, const Vec4<T>* acc, std::int64_t n, T kick_dt, T drift_dt,
                     stream_t stream);

// The SM count and peak clock (kHz) of the current device.
int device_sm_count();
int device_clock_khz();
#endif

}  // namespace tessera::nbody
