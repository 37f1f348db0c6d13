#pragma once
// Warp primitives and 16-byte vector memory accesses shared by the scan kernels.
#include <cuda_runtime.h>

#include <cstdint>

#include "solvers/scan/types.hpp"

namespace tessera::scan::gpu {

constexpr unsigned kFullMask = 0xffffffffu;

template <class T>
__device__ __forceinline__ T shfl_up(T v, int delta) {
  return __shfl_up_sync(kFullMask, v, delta);
}
template <class T>
__device__ __forceinline__ T shfl_idx(T v, int src) {
  return __shfl_sync(kFullMask, v, src);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int mask) {
  return __shfl_xor_sync(kFullMask, v, mask);
}

// Inclusive scans over the 32 lanes of R independent values at once (Kogge-Stone; the R
// chains interleave, so their shuffles overlap).
template <class T, int R>
__device__ __forceinline__ void warp_inclusive_scan(T (&x)[R], int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const T y = shfl_up(x[r], d);
      if (lane >= d) x[r] = scan_add(y, x[r]);
    }
  }
}

// Sum over the warp, the same value in every lane (a butterfly; IEEE adds commute, so the
// partners agree bitwise).
template <class T>
__device__ __forceinline__ T warp_sum(T x) {
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) x = scan_add(x, shfl_xor(x, m));
  return x;
}

// Sum over the block; the result is valid in thread 0.
template <int Threads, class T>
__device__ __forceinline__ T block_sum(T x) {
  __shared__ T warp_part[Threads / 32];
  x = warp_sum(x);
  if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = x;
  __syncthreads();
  T total = T(0);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int w = 0; w < Threads / 32; ++w) total = scan_add(total, warp_part[w]);
  }
  return total;
}

template <class T>
constexpr int kVec16 = 16 / static_cast<int>(sizeof(T));

// Cache hints of the 16-byte global accesses. Every element of a scan is read once and written
// once, so the candidates mark them as streaming (evict first) instead of the default policy.
enum class LoadHint {
  nc,           // ld.global.nc: the read-only path (the default)
  cs,           // ld.global.cs: streaming, evict first from L1 and L2
  lu,           // ld.global.lu: last use
  evict_first,  // ld.global.nc.L1::no_allocate with an L2 evict-first cache policy
};
enum class StoreHint {
  wb,           // st.global.wb (the default)
  cs,           // st.global.cs: streaming
  evict_first,  // st.global.L1::no_allocate with an L2 evict-first cache policy
};

// An L2 policy marking lines evict-first (for .L2::cache_hint operands). Not volatile, so the
// compiler may compute it once.
__device__ __forceinline__ unsigned long long l2_evict_first_policy() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

template <LoadHint H>
__device__ __forceinline__ uint4 load_uint4(const uint4* p) {
  if constexpr (H == LoadHint::nc) {
    return __ldg(p);
  } else if constexpr (H == LoadHint::cs) {
    return __ldcs(p);
  } else if constexpr (H == LoadHint::lu) {
    return __ldlu(p);
  } else {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(l2_evict_first_policy()));
    return v;
  }
}

template <StoreHint H>
__device__ __forceinline__ void store_uint4(uint4* p, uint4 v) {
  if constexpr (H == StoreHint::wb) {
    __stwb(p, v);
  } else if constexpr (H == StoreHint::cs) {
    __stcs(p, v);
  } else {
    asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;"
                 :
                 : "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(l2_evict_first_policy())
                 : "memory");
  }
}

// One 16-byte load (by default through the read-only path). `p` must be 16-byte aligned.
template <LoadHint H = LoadHint::nc, class T>
__device__ __forceinline__ void load16(const T* p, T (&v)[kVec16<T>]) {
  union {
    uint4 u;
    T v[kVec16<T>];
  } pack;
  pack.u = load_uint4<H>(reinterpret_cast<const uint4*>(p));
#pragma unroll
  for (int k = 0; k < kVec16<T>; ++k) v[k] = pack.v[k];
}

// N consecutive values with 16-byte stores (an intrinsic, so the compiler cannot split them).
// `p` must be 16-byte aligned.
template <StoreHint H = StoreHint::wb, class T, int N>
__device__ __forceinline__ void store16(T* p, const T (&v)[N]) {
  static_assert((N * sizeof(T)) % 16 == 0, "whole 16-byte chunks only");
  constexpr int kChunks = static_cast<int>(N * sizeof(T) / 16);
  union {
    uint4 u[kChunks];
    T v[N];
  } pack;
#pragma unroll
  for (int k = 0; k < N; ++k) pack.v[k] = v[k];
#pragma unroll
  for (int c = 0; c < kChunks; ++c) store_uint4<H>(reinterpret_cast<uint4*>(p) + c, pack.u[c]);
}

// 16 bytes from / to shared memory (one LDS.128 / STS.128). `p` must be 16-byte aligned.
template <class T>
__device__ __forceinline__ void load16_shared(const T* p, T (&v)[kVec16<T>]) {
  union {
    uint4 u;
    T v[kVec16<T>];
  } pack;
  pack.u = *reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int k = 0; k < kVec16<T>; ++k) v[k] = pack.v[k];
}
template <class T>
__device__ __forceinline__ void store16_shared(T* p, const T (&v)[kVec16<T>]) {
  union {
    uint4 u;
    T v[kVec16<T>];
  } pack;
#pragma unroll
  for (int k = 0; k < kVec16<T>; ++k) pack.v[k] = v[k];
  *reinterpret_cast<uint4*>(p) = pack.u;
}

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

__host__ __device__ inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace tessera::scan::gpu
