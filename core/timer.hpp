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

// A point in one stream's work, for phase times without a host synchronisation per phase: a
// CUDA event on a device stream, the host clock for host work (done when its call returns).
// seconds_since(earlier) waits for this mark.
class StreamMark {
 public:
  StreamMark() = default;
  ~StreamMark();
  StreamMark(const StreamMark&) = delete;
  StreamMark& operator=(const StreamMark&) = delete;

  // `device`: the stream's work runs on the GPU (else it is host work, already done).
  void record(stream_t stream, bool device);
  double seconds_since(const StreamMark& earlier) const;

 private:
  void* event_ = nullptr;  // cudaEvent_t, made at the first device record
  bool device_ = false;
  std::chrono::steady_clock::time_point host_{};
};

}  // namespace tessera
