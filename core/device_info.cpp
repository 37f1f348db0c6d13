#include "core/device_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/stream.hpp"

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
  DeviceBuffer<std::byte> a(bytes), b(bytes);
  Stream stream;
  TESSERA_CUDA_CHECK(cudaMemsetAsync(a.data(), 1, bytes, stream));
  cudaEvent_t start = nullptr, stop = nullptr;
  TESSERA_CUDA_CHECK(cudaEventCreate(&start));
  TESSERA_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> seconds;
  for (int r = 0; r <= std::max(repeat, 1); ++r) {
    TESSERA_CUDA_CHECK(cudaEventRecord(start, stream));
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    TESSERA_CUDA_CHECK(cudaEventRecord(stop, stream));
    TESSERA_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TESSERA_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r > 0) seconds.push_back(ms * 1e-3);  // the first is a warm-up
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  std::sort(seconds.begin(), seconds.end());
  return 2.0 * static_cast<double>(bytes) / seconds[seconds.size() / 2];
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
