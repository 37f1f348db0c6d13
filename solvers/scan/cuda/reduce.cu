// The reduction behind the distributed scan's first phase (each rank's block total, before the
// exscan of totals): one read per element, a persistent grid, vectorised loads, a fixed tree.
// The last block to finish (a counter plus fences) adds the per-block partials, so one launch
// leaves the total in device memory. The grid and the order of every add are fixed, so
// floating-point totals are the same on every call.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/device_common.cuh"
#include "solvers/scan/cuda/kernels.hpp"

namespace tessera::scan::gpu {
namespace {

constexpr int kReduceThreads = 256;
constexpr int kReduceRows = 4;  // 16-byte vectors per thread per tile

template <class In, class Acc>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(const In* in, std::int64_t n, Acc* partials, unsigned* done, Acc* total, bool aligned) {
  constexpr int V = kVec16<In>;
  constexpr std::int64_t kTile = std::int64_t{kReduceThreads} * kReduceRows * V;
  const std::int64_t tiles = ceil_div(n, kTile);
  Acc acc = Acc(0);
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::int64_t base = t * kTile;
    if (aligned && base + kTile <= n) {
      In x[kReduceRows][V];
#pragma unroll
      for (int r = 0; r < kReduceRows; ++r) load16(in + base + (r * kReduceThreads + threadIdx.x) * V, x[r]);
#pragma unroll
      for (int r = 0; r < kReduceRows; ++r)
#pragma unroll
        for (int k = 0; k < V; ++k) acc = scan_add(acc, static_cast<Acc>(x[r][k]));
    } else {
#pragma unroll
      for (int r = 0; r < kReduceRows; ++r)
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const std::int64_t i = base + (r * kReduceThreads + threadIdx.x) * V + k;
          if (i < n) acc = scan_add(acc, static_cast<Acc>(in[i]));
        }
    }
  }
  acc = block_sum<kReduceThreads>(acc);

  __shared__ bool s_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = acc;
    __threadfence();  // the partial is visible device-wide before the counter says so
    s_last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (s_last && threadIdx.x < 32) {
    __threadfence();
    Acc sum = Acc(0);
    for (unsigned b = threadIdx.x; b < gridDim.x; b += 32)
      sum = scan_add(sum, cuda::atomic_ref<Acc, cuda::thread_scope_device>(partials[b]).load(cuda::memory_order_relaxed));
    sum = warp_sum(sum);
    if (threadIdx.x == 0) {
      *total = sum;
      *done = 0;  // ready for the next launch (kernels on one stream do not overlap)
    }
  }
}

}  // namespace

int ReduceWorkspace::max_blocks() {
  if (max_blocks_ == 0) {
    int device = 0, sms = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&device));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    max_blocks_ = 4 * sms;
  }
  return max_blocks_;
}

void ReduceWorkspace::prepare(int blocks, std::size_t value_bytes, stream_t stream) {
  if (done_.empty()) {
    done_ = DeviceBuffer<unsigned>(1);
    TESSERA_CUDA_CHECK(cudaMemsetAsync(done_.data(), 0, sizeof(unsigned), stream));
  }
  const std::size_t need = static_cast<std::size_t>(blocks) * value_bytes;
  if (partials_.bytes() < need) partials_ = DeviceBuffer<char>(need);
}

template <class In, class Acc>
void reduce_sum(const In* in, std::int64_t n, Acc* total, ReduceWorkspace& ws, stream_t stream) {
  if (n <= 0) {
    TESSERA_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(Acc), stream));
    return;
  }
  constexpr std::int64_t kTile = std::int64_t{kReduceThreads} * kReduceRows * kVec16<In>;
  const int blocks = static_cast<int>(std::min<std::int64_t>(ws.max_blocks(), ceil_div(n, kTile)));
  ws.prepare(blocks, sizeof(Acc), stream);
  reduce_kernel<In, Acc><<<blocks, kReduceThreads, 0, stream>>>(in, n, reinterpret_cast<Acc*>(ws.partials()),
                                                                ws.done(), total, aligned16(in));
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class Wide, class Out>
__global__ void rank_offset_kernel(const Wide* totals, int rank, Out* offset) {
  if constexpr (std::is_integral_v<Wide>) {
    unsigned long long s = 0;  // wraps by definition, as the host exscan's uint64
    for (int q = 0; q < rank; ++q) s += static_cast<unsigned long long>(totals[q]);
    *offset = static_cast<Out>(static_cast<Wide>(s));
  } else {
    Wide s = 0;
    for (int q = 0; q < rank; ++q) s += totals[q];
    *offset = static_cast<Out>(s);
  }
}

template <class Wide, class Out>
void rank_offset(const Wide* totals, int rank, Out* offset, stream_t stream) {
  rank_offset_kernel<<<1, 1, 0, stream>>>(totals, rank, offset);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template void rank_offset<std::int64_t, std::int32_t>(const std::int64_t*, int, std::int32_t*, stream_t);
template void rank_offset<std::int64_t, std::int64_t>(const std::int64_t*, int, std::int64_t*, stream_t);
template void rank_offset<double, float>(const double*, int, float*, stream_t);
template void rank_offset<double, double>(const double*, int, double*, stream_t);

template void reduce_sum<std::int32_t, std::int64_t>(const std::int32_t*, std::int64_t, std::int64_t*,
                                                     ReduceWorkspace&, stream_t);
template void reduce_sum<std::int64_t, std::int64_t>(const std::int64_t*, std::int64_t, std::int64_t*,
                                                     ReduceWorkspace&, stream_t);
template void reduce_sum<float, double>(const float*, std::int64_t, double*, ReduceWorkspace&, stream_t);
template void reduce_sum<double, double>(const double*, std::int64_t, double*, ReduceWorkspace&, stream_t);

}  // namespace tessera::scan::gpu
