// Generated inputs made where they are used: on the device, with the same counter-based hash
// as the host (solvers/scan/generate.hpp), so no host copy or transfer is needed.
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/device_scan.hpp"

namespace tessera::scan {
namespace {

template <class T>
__global__ void generate_kernel(T* out, std::int64_t count, std::int64_t first, Generator gen) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t j = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; j < count; j += stride)
    out[j] = generated_value<T>(gen, first + j);
}

}  // namespace

template <class T>
void generate_device(T* out, std::int64_t count, std::int64_t first, const Generator& gen, stream_t stream) {
  if (count <= 0) return;
  constexpr int kThreads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((count + kThreads - 1) / kThreads, 1 << 16);
  generate_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(out, count, first, gen);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template void generate_device<std::int32_t>(std::int32_t*, std::int64_t, std::int64_t, const Generator&, stream_t);
template void generate_device<std::int64_t>(std::int64_t*, std::int64_t, std::int64_t, const Generator&, stream_t);
template void generate_device<float>(float*, std::int64_t, std::int64_t, const Generator&, stream_t);
template void generate_device<double>(double*, std::int64_t, std::int64_t, const Generator&, stream_t);

}  // namespace tessera::scan
