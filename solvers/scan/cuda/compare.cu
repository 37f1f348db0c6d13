// Bitwise comparison of two device arrays (kernels.hpp): the benchmark checks each look-back
// candidate's result against CUB's without copying gigabytes to the host.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/device_common.cuh"
#include "solvers/scan/cuda/kernels.hpp"

namespace tessera::scan::gpu {
namespace {

template <class T>
__global__ void count_differences_kernel(const T* a, const T* b, std::int64_t n, unsigned long long* count) {
  using Bits = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  unsigned long long mine = 0;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    Bits x, y;
    memcpy(&x, a + i, sizeof x);
    memcpy(&y, b + i, sizeof y);
    mine += x != y;
  }
  if (mine) atomicAdd(count, mine);
}

}  // namespace

template <class T>
std::int64_t count_differences(const T* a, const T* b, std::int64_t n, stream_t stream) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte elements");
  if (n <= 0) return 0;
  DeviceBuffer<unsigned long long> count(1);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(count.data(), 0, sizeof(unsigned long long), stream));
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(ceil_div(n, 256), 4096));
  count_differences_kernel<<<blocks, 256, 0, stream>>>(a, b, n, count.data());
  TESSERA_CUDA_CHECK_LAUNCH();
  unsigned long long host = 0;
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(&host, count.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<std::int64_t>(host);
}

template std::int64_t count_differences<std::int32_t>(const std::int32_t*, const std::int32_t*, std::int64_t, stream_t);
template std::int64_t count_differences<std::int64_t>(const std::int64_t*, const std::int64_t*, std::int64_t, stream_t);
template std::int64_t count_differences<float>(const float*, const float*, std::int64_t, stream_t);
template std::int64_t count_differences<double>(const double*, const double*, std::int64_t, stream_t);

}  // namespace tessera::scan::gpu
