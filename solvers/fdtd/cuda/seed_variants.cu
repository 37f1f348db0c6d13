// The seed's launch mappings (seed_variants.hpp), on the cuda engine's arrays.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include <string>

#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "solvers/fdtd/cuda/cuda_engine.hpp"
#include "solvers/fdtd/cuda/seed_variants.hpp"

namespace tessera::fdtd {
namespace {

struct Dims {
  int n0, n1, n2;
};

// Simple domain division: block b covers Q = ceil(N / Bs) cells per axis, thread t of it the
// P = ceil(Q / Ts) cells from b Q + t P (within the block's range and the grid).
__device__ __forceinline__ void thread_range(int n, int bs_cells, int b, int t, int p, int& lo, int& hi) {
  const int block_lo = b * bs_cells, block_hi = min(block_lo + bs_cells, n);
  lo = block_lo + t * p;
  hi = min(lo + p, block_hi);
}

template <bool kElectric>
__global__ void blocked(DeviceView v, Dims n, int q0, int q1, int q2, int p0, int p1, int p2) {
  int i0, i1, j0, j1, k0, k1;
  thread_range(n.n0, q0, blockIdx.x, threadIdx.x, p0, i0, i1);
  thread_range(n.n1, q1, blockIdx.y, threadIdx.y, p1, j0, j1);
  thread_range(n.n2, q2, blockIdx.z, threadIdx.z, p2, k0, k1);
  const std::int64_t sy = v.layout.pitch, sz = v.layout.plane();
  for (int k = k0; k < k1; ++k)
    for (int j = j0; j < j1; ++j)
      for (int i = i0; i < i1; ++i) {
        const std::int64_t c = v.layout.at(i, j, k);
        if (kElectric) update_e_at(v.f, c, sy, sz, v.table[v.uniform ? 0 : v.mat[c]]);
        else update_h_at(v.f, c, sy, sz, v.ch);
      }
}

template <bool kElectric>
__global__ void zcolumn(DeviceView v, Dims n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x), j = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= n.n0 || j >= n.n1) return;
  const std::int64_t sy = v.layout.pitch, sz = v.layout.plane();
  for (int k = 0; k < n.n2; ++k) {
    const std::int64_t c = v.layout.at(i, j, k);
    if (kElectric) update_e_at(v.f, c, sy, sz, v.table[v.uniform ? 0 : v.mat[c]]);
    else update_h_at(v.f, c, sy, sz, v.ch);
  }
}

template <bool kElectric>
__global__ void flat(DeviceView v, Dims n, unsigned per_block) {
  const unsigned total = unsigned(n.n0) * unsigned(n.n1) * unsigned(n.n2);
  const unsigned block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  const unsigned begin = block * per_block;
  const unsigned end = min(begin + per_block, total);
  const std::int64_t sy = v.layout.pitch, sz = v.layout.plane();
  for (unsigned f = begin + t; f < end; f += threads) {
    const unsigned i = f % unsigned(n.n0), r = f / unsigned(n.n0);
    const unsigned j = r % unsigned(n.n1), k = r / unsigned(n.n1);
    const std::int64_t c = v.layout.at(i, j, k);
    if (kElectric) update_e_at(v.f, c, sy, sz, v.table[v.uniform ? 0 : v.mat[c]]);
    else update_h_at(v.f, c, sy, sz, v.ch);
  }
}

int ceil_div(std::int64_t a, std::int64_t b) { return static_cast<int>((a + b - 1) / b); }

struct Launch {
  dim3 grid, block;
};

enum Kind { kBlocked1x1x64, kBlocked8x8x8, kZColumn, kFlat };

Launch launch_of(int v, const Index3& n) {
  switch (v) {
    case kBlocked1x1x64: return {dim3(unsigned(n[0]), unsigned(n[1]), 2), dim3(1, 1, 64)};
    case kBlocked8x8x8: return {dim3(ceil_div(n[0], 8), ceil_div(n[1], 8), ceil_div(n[2], 8)), dim3(8, 8, 8)};
    case kZColumn: return {dim3(ceil_div(n[0], 32), ceil_div(n[1], 8), 1), dim3(32, 8, 1)};
    default: return {dim3(128, 128, 1), dim3(16, 8, 1)};
  }
}

template <bool kElectric>
void launch(int v, const DeviceView& view, cudaStream_t stream) {
  const Index3& n = view.n;
  const Dims d{int(n[0]), int(n[1]), int(n[2])};
  const Launch l = launch_of(v, n);
  switch (v) {
    case kBlocked1x1x64:
    case kBlocked8x8x8: {
      const int q0 = ceil_div(n[0], l.grid.x), q1 = ceil_div(n[1], l.grid.y), q2 = ceil_div(n[2], l.grid.z);
      blocked<kElectric><<<l.grid, l.block, 0, stream>>>(view, d, q0, q1, q2, ceil_div(q0, l.block.x),
                                                         ceil_div(q1, l.block.y), ceil_div(q2, l.block.z));
      break;
    }
    case kZColumn: zcolumn<kElectric><<<l.grid, l.block, 0, stream>>>(view, d); break;
    default: {
      const std::int64_t total = n[0] * n[1] * n[2];
      if (total >= (std::int64_t(1) << 32)) throw std::logic_error("seed_flat: grid too large for 32-bit indices");
      flat<kElectric><<<l.grid, l.block, 0, stream>>>(view, d,
                                                      unsigned(ceil_div(total, std::int64_t(l.grid.x) * l.grid.y)));
    }
  }
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace

std::vector<SeedVariant> seed_variants(const Index3& n) {
  const char* names[] = {"seed_blocked 1x1x64", "seed_blocked 8x8x8", "seed_zcolumn 32x8", "seed_flat 16x8"};
  std::vector<SeedVariant> out;
  for (int v = 0; v < 4; ++v) {
    const Launch l = launch_of(v, n);
    // (fmt's compile-time format checks do not build under nvcc)
    const auto s = [](unsigned x) { return std::to_string(x); };
    out.push_back({names[v], "-g " + s(l.grid.x) + " " + s(l.grid.y) + " " + s(l.grid.z) + " -b " + s(l.block.x) + " " +
                                 s(l.block.y) + " " + s(l.block.z)});
  }
  return out;
}

void run_seed_variant(Engine& engine, int v) {
  auto* cuda = dynamic_cast<CudaEngine*>(&engine);
  if (!cuda) throw std::logic_error("run_seed_variant needs a cuda engine");
  const DeviceView view = cuda->view();
  launch<false>(v, view, cuda->compute_stream());
  launch<true>(v, view, cuda->compute_stream());
}

}  // namespace tessera::fdtd
