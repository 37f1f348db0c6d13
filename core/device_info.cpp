#include "core/device_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/backend.hpp"
#include "core/cuda_check.hpp"

namespace tessera {

namespace {
[[maybe_unused]] std::string version_text(int v) { return v > 0 ? fmt::format("{}.{}", v / 1000, (v % 1000) / 10) : std::string(); }
}  // namespace

std::optional<DeviceInfo> current_device_info() {
#if defined(TESSERA_HAVE_CUDA)
  if (visible_device_count() == 0) return std::nullopt;
  DeviceInfo info;
  TESSERA_CUDA_CHECK(cudaGetDevice(&info.index));
  cudaDeviceProp prop{};
  TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&prop, info.index));
  info.name = prop.name;
  info.total_bytes = prop.totalGlobalMem;
  info.multiprocessors = prop.multiProcessorCount;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, info.index) == cudaSuccess) info.pci_bus_id = bus;
  TESSERA_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
#else
  return std::nullopt;
#endif
}

double device_copy_bandwidth(std::size_t bytes, int repeat) {
#if defined(TESSERA_HAVE_CUDA)
  if (visible_device_count() == 0 || bytes == 0) return 0.0;
  void *a = nullptr, *b = nullptr;
  TESSERA_CUDA_CHECK(cudaMalloc(&a, bytes));
  TESSERA_CUDA_CHECK(cudaMalloc(&b, bytes));
  cudaEvent_t start = nullptr, stop = nullptr;
  TESSERA_CUDA_CHECK(cudaEventCreate(&start));
  TESSERA_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i <= std::max(repeat, 1); ++i) {
    TESSERA_CUDA_CHECK(cudaEventRecord(start));
    TESSERA_CUDA_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    TESSERA_CUDA_CHECK(cudaEventRecord(stop));
    TESSERA_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    TESSERA_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i > 0) ms.push_back(t);  // the first is the warm-up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  std::sort(ms.begin(), ms.end());
  return 2.0 * static_cast<double>(bytes) / (static_cast<double>(ms[ms.size() / 2]) * 1e-3);
#else
  (void)bytes;
  (void)repeat;
  return 0.0;
#endif
}

std::string cuda_runtime_version() {
#if defined(TESSERA_HAVE_CUDA)
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return {};
  return version_text(v);
#else
  return {};
#endif
}

std::string cuda_driver_version() {
#if defined(TESSERA_HAVE_CUDA)
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess || v == 0) {
    (void)cudaGetLastError();
    return {};
  }
  return version_text(v);
#else
  return {};
#endif
}

}  // namespace tessera
