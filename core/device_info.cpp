#include "core/device_info.hpp"

#include <fmt/format.h>

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
