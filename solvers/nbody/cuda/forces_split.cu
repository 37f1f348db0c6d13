// The split kernel: one block owns threads x B targets (B per thread, in registers) and one
// slice of the sources (grid y = split slices of whole 256-source tiles). Sources pass through
// shared memory in tiles of a compile-time size, copied asynchronously one tile ahead, so the
// inner loop has a constant trip count and no bounds tests (the last tile is padded with
// massless bodies, whose terms are exactly 0). With split > 1 each block writes its partial
// sums to a workspace and a second kernel adds the slices in the order 0, 1, ... (no atomics:
// the result is the same in every run). Many short blocks fill the SMs evenly (see
// split_efficiency.hpp); the shapes compiled are listed in split_shapes.hpp.
//
// When every source has the same mass m (ForceArgs::common_mass) the kernel sums the pull of
// unit masses and multiplies by m once, with G: 12 instead of 13 issue slots per interaction.
// A slice's last tile holds padding, which must weigh nothing: there the real sources get
// w = 1 and the padding w = 0 in shared memory, and the general loop runs.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "solvers/nbody/cuda/forces_split.hpp"
#include "solvers/nbody/cuda/kernel_common.cuh"
#include "solvers/nbody/pair_force.hpp"
#include "solvers/nbody/split_shapes.hpp"

namespace tessera::nbody {
namespace {

template <class T>
struct SplitParams : detail::KernelParams<T> {
  Vec4<T>* partials;  // [split][n_targets] raw sums (no G), when split > 1
  int slice;          // sources per block: a multiple of the tile
};

template <class T, int B, int kThreads, int kUnroll, int kMinBlocks, bool kPotential, bool kUnitMass>
__global__ void __launch_bounds__(kThreads, kMinBlocks) split_forces(const SplitParams<T> p) {
  constexpr int kTile = split_tile(kThreads);
  constexpr int kLoads = kTile / kThreads;
  static_assert(kTile % kUnroll == 0, "an unrolled step must divide the tile");
  __shared__ __align__(16) Vec4<T> tiles[2][kTile];

  const int base = static_cast<int>(blockIdx.x) * (kThreads * B);
  T xi[B], yi[B], zi[B], ax[B], ay[B], az[B], ph[B];
  long long gi[B];
#pragma unroll
  for (int b = 0; b < B; ++b) {
    const int i = base + b * kThreads + static_cast<int>(threadIdx.x);
    const Vec4<T> t = i < p.n_targets ? p.targets[i] : Vec4<T>{0, 0, 0, 0};
    xi[b] = t.x;
    yi[b] = t.y;
    zi[b] = t.z;
    ax[b] = ay[b] = az[b] = ph[b] = T(0);
    gi[b] = p.target_offset + i;
  }

  const long long slice_begin = static_cast<long long>(blockIdx.y) * p.slice;  // past n for empty slices
  const int j_begin = slice_begin < p.n_sources ? static_cast<int>(slice_begin) : p.n_sources;
  const int j_end = static_cast<int>(min(slice_begin + p.slice, static_cast<long long>(p.n_sources)));
  auto fetch = [&](int t0, int buffer) {
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      const int k = l * kThreads + static_cast<int>(threadIdx.x);
      if (t0 + k < j_end)
        detail::copy_async(&tiles[buffer][k], p.sources + t0 + k);
      else
        tiles[buffer][k] = Vec4<T>{0, 0, 0, 0};  // massless: contributes exactly 0
    }
    __pipeline_commit();
  };
  if (j_begin < j_end) fetch(j_begin, 0);
  int buffer = 0;
  for (int t0 = j_begin; t0 < j_end; t0 += kTile, buffer ^= 1) {
    if (t0 + kTile < j_end) {
      fetch(t0 + kTile, buffer ^ 1);
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();
    const Vec4<T>* tile = tiles[buffer];
    const long long j0 = p.source_offset + t0;
    if (kUnitMass && t0 + kTile > j_end) {  // the padded tile: real sources weigh 1, padding 0
#pragma unroll
      for (int l = 0; l < kLoads; ++l) {
        const int k = l * kThreads + static_cast<int>(threadIdx.x);
        tiles[buffer][k].w = t0 + k < j_end ? T(1) : T(0);
      }
      __syncthreads();
      detail::add_sources<T, B, kUnroll, kPotential, false>(tile, kTile, j0, gi, xi, yi, zi, p.eps2, ax, ay, az, ph);
    } else {
      detail::add_sources<T, B, kUnroll, kPotential, kUnitMass>(tile, kTile, j0, gi, xi, yi, zi, p.eps2, ax, ay, az,
                                                                ph);
    }
    __syncthreads();  // the next fetch overwrites this tile
  }

#pragma unroll
  for (int b = 0; b < B; ++b) {
    const int i = base + b * kThreads + static_cast<int>(threadIdx.x);
    if (i >= p.n_targets) continue;
    if (gridDim.y == 1)
      detail::store_sums<T, kPotential>(p.acc, p.vel, i, p.G, p.kick_dt, p.accumulate, ax[b], ay[b], az[b], ph[b]);
    else
      p.partials[static_cast<long long>(blockIdx.y) * p.n_targets + i] =
          Vec4<T>{ax[b], ay[b], az[b], kPotential ? ph[b] : T(0)};
  }
}

// Adds the split slices of each target in the order 0, 1, ..., then stores as the kernel would.
template <class T, bool kPotential>
__global__ void add_partials(const SplitParams<T> p, int split) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= p.n_targets) return;
  Vec4<T> s = p.partials[i];
  for (int q = 1; q < split; ++q) {
    const Vec4<T> r = p.partials[static_cast<long long>(q) * p.n_targets + i];
    s.x += r.x;
    s.y += r.y;
    s.z += r.z;
    s.w += r.w;
  }
  detail::store_sums<T, kPotential>(p.acc, p.vel, i, p.G, p.kick_dt, p.accumulate, s.x, s.y, s.z, s.w);
}

// Shared memory before L1: 16 blocks of 8 KiB tiles must fit on an SM at once. Callers keep
// the result in a static, so each kernel is set once (on the device current at that time).
template <class Kernel>
bool prefer_shared(Kernel kernel) {
  TESSERA_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  return true;
}

template <class T, int B, int kThreads, int kUnroll, int kMinBlocks, bool kPotential, bool kUnitMass>
void launch_shape(const SplitParams<T>& p, int split, stream_t stream) {
  const long long per_block = static_cast<long long>(kThreads) * B;
  const long long blocks = (p.n_targets + per_block - 1) / per_block;
  if (blocks > 0x7fffffffLL) throw std::length_error("N-body: too many targets for one launch");
  auto* kernel = split_forces<T, B, kThreads, kUnroll, kMinBlocks, kPotential, kUnitMass>;
  static const bool carveout_set = prefer_shared(kernel);
  (void)carveout_set;
  kernel<<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(split)), kThreads, 0, stream>>>(p);
  TESSERA_CUDA_CHECK_LAUNCH();
  if (split > 1) {
    const unsigned add_blocks = static_cast<unsigned>((p.n_targets + 255) / 256);
    add_partials<T, kPotential><<<add_blocks, 256, 0, stream>>>(p, split);
    TESSERA_CUDA_CHECK_LAUNCH();
  }
}

// The shape's kernel for a pass with or without potentials, with or without a common mass.
template <class T, int B, int kThreads, int kUnroll, int kMinBlocks>
void launch_shape(const SplitParams<T>& p, int split, bool potential, bool unit_mass, stream_t stream) {
  if (potential && unit_mass)
    launch_shape<T, B, kThreads, kUnroll, kMinBlocks, true, true>(p, split, stream);
  else if (potential)
    launch_shape<T, B, kThreads, kUnroll, kMinBlocks, true, false>(p, split, stream);
  else if (unit_mass)
    launch_shape<T, B, kThreads, kUnroll, kMinBlocks, false, true>(p, split, stream);
  else
    launch_shape<T, B, kThreads, kUnroll, kMinBlocks, false, false>(p, split, stream);
}

// Registers and residency of the shape's force-only kernel (the common-mass one when asked).
template <class T, int B, int kThreads, int kUnroll, int kMinBlocks>
SplitKernelInfo info_of_shape(bool unit_mass) {
  auto* kernel = unit_mass ? split_forces<T, B, kThreads, kUnroll, kMinBlocks, false, true>
                           : split_forces<T, B, kThreads, kUnroll, kMinBlocks, false, false>;
  static const bool carveout_set = prefer_shared(kernel);
  (void)carveout_set;
  cudaFuncAttributes attr{};
  TESSERA_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  int resident = 0;
  TESSERA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, 0));
  return SplitKernelInfo{attr.numRegs, resident};
}

}  // namespace

template <class T>
void launch_split(const ForceArgs<T>& a, const KernelConfig& c, stream_t stream) {
  SplitParams<T> p{detail::kernel_params(a)};
  const std::int64_t needed = partials_needed(c, a.n_targets);
  if (needed > 0 && (a.partials == nullptr || a.partials_capacity < needed))
    throw std::invalid_argument("N-body: the split kernel (" + c.describe() + ") needs a workspace of " +
                                std::to_string(needed) + " bodies (ForceArgs::partials)");
  p.partials = a.partials;
  const bool unit_mass = a.common_mass > T(0);
  if (unit_mass) p.G = a.G * a.common_mass;  // the sums are of unit masses
  const long long tile = split_tile(c.group);
  const long long per_split = (a.n_sources + c.split - 1) / c.split;
  p.slice = static_cast<int>((per_split + tile - 1) / tile * tile);
  const int b = c.bodies_per_thread, threads = c.group, unroll = c.unroll, min_blocks = c.min_blocks;
  bool launched = false;
#define TESSERA_NBODY_SPLIT_LAUNCH(type, B, THREADS, UNROLL, MIN_BLOCKS)                          \
  if constexpr (std::is_same_v<T, type>) {                                                         \
    if (!launched && b == B && threads == THREADS && unroll == UNROLL && min_blocks == MIN_BLOCKS) { \
      launch_shape<T, B, THREADS, UNROLL, MIN_BLOCKS>(p, c.split, a.potential, unit_mass, stream);  \
      launched = true;                                                                             \
    }                                                                                              \
  }
  TESSERA_NBODY_SPLIT_SHAPES(TESSERA_NBODY_SPLIT_LAUNCH)
#undef TESSERA_NBODY_SPLIT_LAUNCH
  if (!launched) throw std::invalid_argument("N-body: no compiled split shape " + c.describe());
}

template <class T>
SplitKernelInfo split_kernel_info(const KernelConfig& c, bool common_mass) {
#define TESSERA_NBODY_SPLIT_INFO(type, B, THREADS, UNROLL, MIN_BLOCKS)                                  \
  if constexpr (std::is_same_v<T, type>) {                                                             \
    if (c.bodies_per_thread == B && c.group == THREADS && c.unroll == UNROLL && c.min_blocks == MIN_BLOCKS) \
      return info_of_shape<T, B, THREADS, UNROLL, MIN_BLOCKS>(common_mass);                            \
  }
  TESSERA_NBODY_SPLIT_SHAPES(TESSERA_NBODY_SPLIT_INFO)
#undef TESSERA_NBODY_SPLIT_INFO
  throw std::invalid_argument("N-body: no compiled split shape " + c.describe());
}

template void launch_split<float>(const ForceArgs<float>&, const KernelConfig&, stream_t);
template void launch_split<double>(const ForceArgs<double>&, const KernelConfig&, stream_t);
template SplitKernelInfo split_kernel_info<float>(const KernelConfig&, bool);
template SplitKernelInfo split_kernel_info<double>(const KernelConfig&, bool);

}  // namespace tessera::nbody
