#pragma once
// Timers: HostTimer (steady clock, for whole steps and ETAs) and DeviceTimer (a pair of CUDA
// events around work queued on one stream, for kernel times without host synchronisation).
#include <chrono>

#include "core/stream.hpp"

namespace tessera {

class HostTimer {
 public:
  HostTimer() : start_(clock::now()) {}
  void reset() { start_ = clock::now(); }
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point start_;
};

// start() and stop() record events on `stream`; seconds() waits for the stop event.
class DeviceTimer {
 public:
  DeviceTimer();
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;

  void start(stream_t stream = nullptr);
  void stop(stream_t stream = nullptr);
  double seconds() const;

 private:
  void* start_ = nullptr;  // cudaEvent_t
  void* stop_ = nullptr;
};

}  // namespace tessera
