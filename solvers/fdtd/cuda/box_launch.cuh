#pragma once
// Launch shapes shared by the cuda engine's small kernels (cuda_engine.cu, spectra.cu,
// dispersion_tfsf.cu): a box as kernel arguments, and one thread per cell of a box with x and
// y flat in blockIdx.x and z in blockIdx.y.
#include <cstdint>

#include "solvers/fdtd/cuda/cuda_engine.hpp"

namespace tessera::fdtd::cuda_detail {

struct BoxArgs {
  int lo0, lo1, lo2, hi0, hi1, hi2;
};

inline BoxArgs box_args(const Box& b) {
  return {int(b.lo[0]), int(b.lo[1]), int(b.lo[2]), int(b.hi[0]), int(b.hi[1]), int(b.hi[2])};
}

// ---- generic: one thread per cell of a box, x fastest (shells, thin boxes) ----
// Launched as plane_grid(box): blockIdx.y is the z layer, the x-y plane is flat in x and y
// (32-bit arithmetic: one division per thread).

inline dim3 plane_grid(const Box& b) {
  return dim3(static_cast<unsigned>((b.extent(0) * b.extent(1) + kThreads - 1) / kThreads),
              static_cast<unsigned>(b.extent(2)));
}

__device__ __forceinline__ bool plane_cell(const BoxArgs& b, int& i, int& j, int& k, std::int64_t& flat) {
  const unsigned ex = unsigned(b.hi0 - b.lo0), ey = unsigned(b.hi1 - b.lo1);
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ex * ey) return false;
  i = b.lo0 + int(t % ex);
  j = b.lo1 + int(t / ex);
  k = b.lo2 + int(blockIdx.y);
  flat = std::int64_t(blockIdx.y) * (ex * ey) + t;  // dense index within the box
  return true;
}

}  // namespace tessera::fdtd::cuda_detail
