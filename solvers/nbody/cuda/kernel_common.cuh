#pragma once
// Device helpers shared by the force kernels (forces.cu, forces_split.cu).
#include <cuda_pipeline.h>

#include <stdexcept>

#include "solvers/nbody/forces.hpp"

#include "solvers/nbody/pair_force.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody::detail {

// What every force kernel reads (the tiled and split kernels add their own launch shape).
// Counts are int: a launch covers fewer than 2^31 - 4096 bodies (checked by kernel_params).
template <class T>
struct KernelParams {
  const Vec4<T>* targets;
  const Vec4<T>* sources;
  Vec4<T>* acc;
  Vec4<T>* vel;
  int n_targets, n_sources;
  long long target_offset, source_offset;
  T G, eps2, kick_dt;
  bool accumulate;
};

template <class T>
KernelParams<T> kernel_params(const ForceArgs<T>& a) {
  if (a.n_targets >= (1LL << 31) - 4096 || a.n_sources >= (1LL << 31) - 4096)
    throw std::length_error("N-body: a rank's block must hold fewer than 2^31 - 4096 bodies");
  KernelParams<T> p{};
  p.targets = a.targets;
  p.sources = a.sources;
  p.acc = a.acc;
  p.vel = a.vel;
  p.n_targets = static_cast<int>(a.n_targets);
  p.n_sources = static_cast<int>(a.n_sources);
  p.target_offset = a.target_offset;
  p.source_offset = a.source_offset;
  p.G = a.G;
  p.eps2 = a.eps2;
  p.kick_dt = a.kick_dt;
  p.accumulate = a.accumulate;
  return p;
}

// One body (16 or 32 bytes) from global to shared memory without passing through registers.
template <class T>
__device__ __forceinline__ void copy_async(Vec4<T>* dst, const Vec4<T>* src) {
  static_assert(sizeof(Vec4<T>) % 16 == 0);
#pragma unroll
  for (int q = 0; q < int(sizeof(Vec4<T>) / 16); ++q)
    __pipeline_memcpy_async(reinterpret_cast<char*>(dst) + 16 * q, reinterpret_cast<const char*>(src) + 16 * q, 16);
}

// The inner loop of the shared-memory kernels: each of the thread's B bodies adds the pull of
// `count` sources at `src` (shared memory; count a multiple of U, the sources per unrolled
// step). With kPotential the potential too, which excludes the body itself: gi[b] is body b's
// global index and j0 that of src[0] (the self term of the force is exactly 0, no test).
// With kUnitMass every source counts as mass 1 (add_pair's unit-mass form).
template <class T, int B, int U, bool kPotential, bool kUnitMass = false>
__device__ __forceinline__ void add_sources(const Vec4<T>* src, int count, long long j0, const long long (&gi)[B],
                                            const T (&xi)[B], const T (&yi)[B], const T (&zi)[B], T eps2,
                                            T (&ax)[B], T (&ay)[B], T (&az)[B], T (&ph)[B]) {
  int self[B];  // offset of each body among these sources, -1: not here (potential only)
#pragma unroll
  for (int b = 0; b < B; ++b) {
    const long long d = gi[b] - j0;
    self[b] = kPotential && d >= 0 && d < count ? static_cast<int>(d) : -1;
  }
#pragma unroll 1
  for (int jj = 0; jj < count; jj += U) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const Vec4<T> pj = src[jj + u];
#pragma unroll
      for (int b = 0; b < B; ++b) {
        const T m_r = add_pair<T, kUnitMass>(xi[b], yi[b], zi[b], pj, eps2, ax[b], ay[b], az[b]);
        if constexpr (kPotential) ph[b] += self[b] == jj + u ? T(0) : m_r;
      }
    }
  }
}

// Writes the sums for target i: acc (= or +=) G * sum (and -G * potential in w, else 0), then
// the optional kick v += acc * kick_dt.
template <class T, bool kPotential>
__device__ __forceinline__ void store_sums(Vec4<T>* acc, Vec4<T>* vel, int i, T G, T kick_dt, bool accumulate, T ax,
                                           T ay, T az, T ph) {
  Vec4<T> a{G * ax, G * ay, G * az, kPotential ? -G * ph : T(0)};
  if (accumulate) {
    const Vec4<T> o = acc[i];
    a = Vec4<T>{o.x + a.x, o.y + a.y, o.z + a.z, o.w + a.w};
  }
  acc[i] = a;
  if (vel) {
    Vec4<T> v = vel[i];
    v.x = fused_mul_add(a.x, kick_dt, v.x);
    v.y = fused_mul_add(a.y, kick_dt, v.y);
    v.z = fused_mul_add(a.z, kick_dt, v.z);
    vel[i] = v;
  }
}

}  // namespace tessera::nbody::detail
