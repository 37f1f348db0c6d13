#pragma once
// What this process knows about its CUDA device and toolkit, for `tessera info` and logs.
#include <cstddef>
#include <optional>
#include <string>

namespace tessera {

struct DeviceInfo {
  int index = -1;
  std::string name;
  std::string pci_bus_id;
  std::size_t total_bytes = 0;
  std::size_t free_bytes = 0;
  int multiprocessors = 0;
  int cc_major = 0, cc_minor = 0;
};

// The current device (after comm::Context bound it), or nothing without CUDA or a device.
std::optional<DeviceInfo> current_device_info();
// "13.0" style versions; "" when unavailable (no CUDA build, no driver).
std::string cuda_runtime_version();
std::string cuda_driver_version();

// Read + write bytes per second of a device-to-device cudaMemcpy of `bytes` on the current
// device (median of `repeat`, after a warm-up): the memory bound benchmarks compare with.
// 0 without CUDA or a device.
double device_copy_bandwidth(std::size_t bytes, int repeat);

}  // namespace tessera
