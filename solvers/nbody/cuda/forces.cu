// GPU force kernels: tessera's tiled kernel and the seeds' two baselines, plus the integrator
// update; the split kernel is in forces_split.cu. Built with -ftz=true (see
// CMakeLists.txt) so rsqrtf is a single MUFU.RSQ.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <stdexcept>

#include "core/cuda_check.hpp"
#include "solvers/nbody/forces.hpp"
#include "solvers/nbody/cuda/forces_split.hpp"
#include "solvers/nbody/cuda/kernel_common.cuh"
#include "solvers/nbody/pair_force.hpp"

namespace tessera::nbody {
namespace {

// One dynamic shared-memory declaration for every kernel of this file (nvcc wants them alike).
extern __shared__ __align__(32) unsigned char shared_bytes[];

using detail::add_sources;
using detail::copy_async;

template <class T>
__device__ __forceinline__ Vec4<T>* shared_vec4() {
  return reinterpret_cast<Vec4<T>*>(shared_bytes);
}

// Sources per unrolled step of the inner loop: 64 interactions (16 with one body per thread)
// between loop branches, few enough that the loaded sources fit the 64-register budget and
// the loop body stays in the instruction cache. A slice is a multiple of 16 sources.
template <int B>
constexpr int kUnroll = B >= 4 ? 8 : 16;

template <class T, int B>
struct LaunchCap {
  static constexpr int value = (B >= 4 ? 256 : B == 2 ? 512 : 1024) / (sizeof(T) == 8 ? 2 : 1);
  // Blocks of the largest shape an SM must hold at once: caps registers at 64 per thread
  // (float; 128 in double), i.e. 32 (16) resident warps per SM.
  static constexpr int min_blocks = (sizeof(T) == 8 ? 512 : 1024) / value;
};

template <class T>
struct TiledParams : detail::KernelParams<T> {
  int group;  // threads per group; blockDim.x / group groups split each tile
  int loads;  // sources each thread loads per tile; a group's slice is group * loads sources
};

// Writes the block's sums for target i: acc (= or +=) G * sum, then the optional kick.
template <class T, bool kPotential>
__device__ __forceinline__ void store_target(const TiledParams<T>& p, int i, T ax, T ay, T az, T ph) {
  detail::store_sums<T, kPotential>(p.acc, p.vel, i, p.G, p.kick_dt, p.accumulate, ax, ay, az, ph);
}

// tessera's kernel. A block owns group * B targets; thread (s, g) holds targets
// base + b * group + g (b < B) in registers. Sources pass through shared memory in tiles of
// blockDim * loads bodies; group s sums slice s of each tile. Slices are combined in shared
// memory in the order s = 0, 1, ..., so the result is deterministic.
template <class T, int B, bool kPotential>
__global__ void __launch_bounds__(LaunchCap<T, B>::value, LaunchCap<T, B>::min_blocks) tiled_forces(const TiledParams<T> p) {
  Vec4<T>* tile = shared_vec4<T>();
  const int G = p.group;
  const int s = threadIdx.x / G;
  const int g = threadIdx.x - s * G;
  const int base = static_cast<int>(blockIdx.x) * G * B;

  T xi[B], yi[B], zi[B], ax[B], ay[B], az[B], ph[B];
  long long gi[B];
#pragma unroll
  for (int b = 0; b < B; ++b) {
    const int i = base + b * G + g;
    const Vec4<T> t = i < p.n_targets ? p.targets[i] : Vec4<T>{0, 0, 0, 0};
    xi[b] = t.x;
    yi[b] = t.y;
    zi[b] = t.z;
    ax[b] = ay[b] = az[b] = ph[b] = T(0);
    gi[b] = p.target_offset + i;
  }

  const int slice = G * p.loads;
  const int tile_size = blockDim.x * p.loads;
  // Two tiles in shared memory: the next one is copied in asynchronously (cp.async, no
  // registers) while the current one is computed, so global-memory latency hides behind the
  // arithmetic even with one block per SM (small N).
  auto fetch = [&](int t0, Vec4<T>* dst) {
    for (int l = 0; l < p.loads; ++l) {
      const int k = l * blockDim.x + threadIdx.x;
      const int j = t0 + k;
      if (j < p.n_sources)
        copy_async(dst + k, p.sources + j);
      else
        dst[k] = Vec4<T>{0, 0, 0, 0};  // past the end: mass 0 contributes exactly 0
    }
    __pipeline_commit();
  };
  if (p.n_sources > 0) fetch(0, tile);
  int buffer = 0;
  for (int t0 = 0; t0 < p.n_sources; t0 += tile_size, buffer ^= 1) {
    if (t0 + tile_size < p.n_sources) {
      fetch(t0 + tile_size, tile + (buffer ^ 1) * tile_size);
      __pipeline_wait_prior(1);  // this tile's copies are done; the next one's may be in flight
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();
    const Vec4<T>* mine = tile + buffer * tile_size + s * slice;
    add_sources<T, B, kUnroll<B>, kPotential>(mine, slice, p.source_offset + t0 + static_cast<long long>(s) * slice,
                                              gi, xi, yi, zi, p.eps2, ax, ay, az, ph);
    __syncthreads();
  }

  // Four bodies per thread come without a split (check_config): that code path would cost
  // the inner loop registers.
  const int S = blockDim.x / G;
  if (B < 4 && S > 1) {
    // Every group parks its sums; group 0 adds them in the order s = 0, 1, ... one body at a
    // time (few live registers). The tiles are free: the loop ended with a barrier, and the
    // launch sized shared memory for this too.
    Vec4<T>* park = tile;
#pragma unroll
    for (int b = 0; b < B; ++b) park[(s * B + b) * G + g] = Vec4<T>{ax[b], ay[b], az[b], ph[b]};
    __syncthreads();
    if (s > 0) return;
#pragma unroll
    for (int b = 0; b < B; ++b) {
      Vec4<T> sum = park[b * G + g];
      for (int q = 1; q < S; ++q) {
        const Vec4<T> r = park[(q * B + b) * G + g];
        sum.x += r.x;
        sum.y += r.y;
        sum.z += r.z;
        sum.w += r.w;
      }
      ax[b] = sum.x;
      ay[b] = sum.y;
      az[b] = sum.z;
      ph[b] = sum.w;
    }
  }
#pragma unroll
  for (int b = 0; b < B; ++b) {
    const int i = base + b * G + g;
    if (i < p.n_targets) store_target<T, kPotential>(p, i, ax[b], ay[b], az[b], ph[b]);
  }
}

// The seeds' first GPU kernel: one thread per body, every source read from global memory.
template <class T>
__global__ void seed_naive_forces(const TiledParams<T> p) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= p.n_targets) return;
  const Vec4<T> t = p.targets[i];
  T ax = 0, ay = 0, az = 0;
  for (int j = 0; j < p.n_sources; ++j) add_pair(t.x, t.y, t.z, p.sources[j], p.eps2, ax, ay, az);
  store_target<T, false>(p, i, ax, ay, az, T(0));
}

// The seeds' shared-memory kernel: `stride` (BLOCK_STRIDE) blocks share each group of
// blockDim bodies; block k of them takes every stride-th tile starting at k and adds its
// partial force with atomicAdd (so the summation order, and the last bits, vary run to run).
template <class T>
__global__ void seed_atomic_forces(const TiledParams<T> p, int stride) {
  Vec4<T>* tile = shared_vec4<T>();
  const int i = static_cast<int>(threadIdx.x + (blockIdx.x / stride) * blockDim.x);
  const int first_tile = blockIdx.x % stride;
  const int tiles = (p.n_sources + blockDim.x - 1) / blockDim.x;
  const Vec4<T> t = i < p.n_targets ? p.targets[i] : Vec4<T>{0, 0, 0, 0};
  T ax = 0, ay = 0, az = 0;
  for (int k = first_tile; k < tiles; k += stride) {
    const int j = k * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = j < p.n_sources ? p.sources[j] : Vec4<T>{0, 0, 0, 0};
    __syncthreads();
#pragma unroll 8
    for (int q = 0; q < static_cast<int>(blockDim.x); ++q) add_pair(t.x, t.y, t.z, tile[q], p.eps2, ax, ay, az);
    __syncthreads();
  }
  if (i < p.n_targets) {
    atomicAdd(&p.acc[i].x, p.G * ax);
    atomicAdd(&p.acc[i].y, p.G * ay);
    atomicAdd(&p.acc[i].z, p.G * az);
  }
}

template <class T>
__global__ void kick_drift_kernel(Vec4<T>* __restrict__ x, Vec4<T>* __restrict__ v, const Vec4<T>* __restrict__ a,
                                  long long n, T kick_dt, T drift_dt) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Vec4<T> vi = v[i];
    const Vec4<T> ai = a[i];
    vi.x = fused_mul_add(ai.x, kick_dt, vi.x);
    vi.y = fused_mul_add(ai.y, kick_dt, vi.y);
    vi.z = fused_mul_add(ai.z, kick_dt, vi.z);
    v[i] = vi;
    if (drift_dt != T(0)) {
      Vec4<T> xi = x[i];
      xi.x = fused_mul_add(vi.x, drift_dt, xi.x);
      xi.y = fused_mul_add(vi.y, drift_dt, xi.y);
      xi.z = fused_mul_add(vi.z, drift_dt, xi.z);
      x[i] = xi;
    }
  }
}

unsigned grid_for(long long n, int threads) {
  const long long blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65536 ? blocks : 65536);  // grid-stride beyond
}

template <class T>
TiledParams<T> params_of(const ForceArgs<T>& a, const KernelConfig& c) {
  TiledParams<T> p{detail::kernel_params(a)};
  p.group = c.group;
  // Each slice holds at least 64 sources (4 unrolled steps), and always a multiple of 16.
  p.loads = c.group >= 64 ? 1 : 64 / c.group;
  return p;
}

template <class T, int B, bool kPotential>
void launch_tiled_shape(const TiledParams<T>& p, const KernelConfig& c, stream_t stream) {
  const int threads = c.group * c.split;
  const long long blocks = (p.n_targets + static_cast<long long>(c.group) * B - 1) / (static_cast<long long>(c.group) * B);
  if (blocks > 0x7fffffffLL) throw std::length_error("N-body: too many targets for one launch");
  const std::size_t tile = 2 * static_cast<std::size_t>(threads) * p.loads;  // double-buffered
  const std::size_t park = c.split > 1 ? static_cast<std::size_t>(c.split) * B * c.group : 0;
  const std::size_t shared = (tile > park ? tile : park) * sizeof(Vec4<T>);
  if (shared > 48 * 1024)  // beyond the default: ask for it (H100: up to 227 KiB per block)
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(tiled_forces<T, B, kPotential>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared)));
  tiled_forces<T, B, kPotential><<<static_cast<unsigned>(blocks), threads, shared, stream>>>(p);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T, bool kPotential>
void launch_tiled(const TiledParams<T>& p, const KernelConfig& c, stream_t stream) {
  switch (c.bodies_per_thread) {
    case 1: return launch_tiled_shape<T, 1, kPotential>(p, c, stream);
    case 2: return launch_tiled_shape<T, 2, kPotential>(p, c, stream);
    case 4: return launch_tiled_shape<T, 4, kPotential>(p, c, stream);
    default: throw std::invalid_argument("N-body: bodies per thread must be 1, 2 or 4");
  }
}

}  // namespace

template <class T>
void forces_cuda(const ForceArgs<T>& a, const KernelConfig& config, stream_t stream) {
  if (a.n_targets <= 0) return;
  const std::string problem = check_config(config, sizeof(T) == 8);
  if (!problem.empty()) throw std::invalid_argument("N-body kernel shape: " + problem);
  if (config.variant == KernelVariant::split) return launch_split<T>(a, config, stream);
  TiledParams<T> p = params_of(a, config);
  if (config.variant == KernelVariant::tiled || a.potential) {
    KernelConfig c = config;
    if (c.variant != KernelVariant::tiled) c = KernelConfig{KernelVariant::tiled, 32, 1, 1};
    p = params_of(a, c);
    if (a.potential)
      launch_tiled<T, true>(p, c, stream);
    else
      launch_tiled<T, false>(p, c, stream);
    return;
  }
  // The seeds: forces only, then the optional kick as its own launch.
  p.vel = nullptr;
  if (config.variant == KernelVariant::seed_naive) {
    const long long blocks = (a.n_targets + config.group - 1) / config.group;
    seed_naive_forces<T><<<static_cast<unsigned>(blocks), config.group, 0, stream>>>(p);
    TESSERA_CUDA_CHECK_LAUNCH();
  } else {
    if (!a.accumulate) TESSERA_CUDA_CHECK(cudaMemsetAsync(a.acc, 0, a.n_targets * sizeof(Vec4<T>), stream));
    const long long blocks = (a.n_targets + config.group - 1) / config.group * config.split;
    seed_atomic_forces<T><<<static_cast<unsigned>(blocks), config.group, config.group * sizeof(Vec4<T>), stream>>>(
        p, config.split);
    TESSERA_CUDA_CHECK_LAUNCH();
  }
  if (a.vel) {
    kick_drift_kernel<T><<<grid_for(a.n_targets, 256), 256, 0, stream>>>(nullptr, a.vel, a.acc, a.n_targets,
                                                                          a.kick_dt, T(0));
    TESSERA_CUDA_CHECK_LAUNCH();
  }
}

template <class T>
void kick_drift_cuda(Vec4<T>* pos_mass, Vec4<T>* vel, const Vec4<T>* acc, std::int64_t n, T kick_dt, T drift_dt,
                     stream_t stream) {
  if (n <= 0) return;
  kick_drift_kernel<T><<<grid_for(n, 256), 256, 0, stream>>>(pos_mass, vel, acc, n, kick_dt, drift_dt);
  TESSERA_CUDA_CHECK_LAUNCH();
}

int device_sm_count() {
  int dev = 0, v = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
  return v;
}

int device_clock_khz() {
  int dev = 0, v = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev));
  return v;
}

template void forces_cuda<float>(const ForceArgs<float>&, const KernelConfig&, stream_t);
template void forces_cuda<double>(const ForceArgs<double>&, const KernelConfig&, stream_t);
template void kick_drift_cuda<float>(Vec4<float>*, Vec4<float>*, const Vec4<float>*, std::int64_t, float, float,
                                     stream_t);
template void kick_drift_cuda<double>(Vec4<double>*, Vec4<double>*, const Vec4<double>*, std::int64_t, double,
                                      double, stream_t);

}  // namespace tessera::nbody
