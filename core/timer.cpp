#include "core/timer.hpp"

#include "core/cuda_check.hpp"

namespace tessera {

#if defined(TESSERA_HAVE_CUDA)
DeviceTimer::DeviceTimer() {
  cudaEvent_t a = nullptr, b = nullptr;
  TESSERA_CUDA_CHECK(cudaEventCreate(&a));
  TESSERA_CUDA_CHECK(cudaEventCreate(&b));
  start_ = a;
  stop_ = b;
}
DeviceTimer::~DeviceTimer() {
  if (start_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  if (stop_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}
void DeviceTimer::start(stream_t s) { TESSERA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start_), s)); }
void DeviceTimer::stop(stream_t s) { TESSERA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop_), s)); }
double DeviceTimer::seconds() const {
  TESSERA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)));
  float ms = 0.f;
  TESSERA_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)));
  return ms * 1e-3;
}
StreamMark::~StreamMark() {
  if (event_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(event_));
}
void StreamMark::record(stream_t s, bool device) {
  device_ = device;
  if (!device) {
    host_ = std::chrono::steady_clock::now();
    return;
  }
  if (!event_) {
    cudaEvent_t e = nullptr;
    TESSERA_CUDA_CHECK(cudaEventCreate(&e));
    event_ = e;
  }
  TESSERA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event_), s));
}
double StreamMark::seconds_since(const StreamMark& earlier) const {
  if (!device_ || !earlier.device_) return std::chrono::duration<double>(host_ - earlier.host_).count();
  TESSERA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)));
  float ms = 0.f;
  TESSERA_CUDA_CHECK(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(earlier.event_), static_cast<cudaEvent_t>(event_)));
  return ms * 1e-3;
}
#else
StreamMark::~StreamMark() = default;
void StreamMark::record(stream_t, bool) { host_ = std::chrono::steady_clock::now(); }
double StreamMark::seconds_since(const StreamMark& earlier) const {
  return std::chrono::duration<double>(host_ - earlier.host_).count();
}
DeviceTimer::DeviceTimer() { throw CudaError("DeviceTimer needs CUDA; this tessera was built without it"); }
DeviceTimer::~DeviceTimer() = default;
void DeviceTimer::start(stream_t) {}
void DeviceTimer::stop(stream_t) {}
double DeviceTimer::seconds() const { return 0.0; }
#endif

}  // namespace tessera
