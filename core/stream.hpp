#pragma once
// A CUDA stream handle that host-only code can pass around without the CUDA headers:
// cudaStream_t is `CUstream_st*`, so this is the same type. nullptr is the default stream,
// and the only value a CPU-only build ever sees.
#include <cstddef>

struct CUstream_st;
struct CUevent_st;

namespace tessera {

using stream_t = CUstream_st*;

// How the GPU's block scheduler ranks a stream's kernels against other streams' pending
// blocks. Communication (pack, transfer, unpack) runs `high`: its small kernels then start
// as soon as an SM frees up instead of queueing behind every block of a bulk kernel launched
// before them, which is what lets a halo or ring transfer overlap the compute.
enum class StreamPriority { normal, high };

// Owns a non-blocking CUDA stream (or nothing in a CPU-only build).
class Stream {
 public:
  // Creates a cudaStreamNonBlocking stream when CUDA is available.
  explicit Stream(StreamPriority priority = StreamPriority::normal);
  // No stream at all (nullptr), for host-memory paths that take a stream argument.
  static Stream none() { return Stream(nullptr); }
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept : s_(other.s_) { other.s_ = nullptr; }
  Stream& operator=(Stream&& other) noexcept;

  stream_t get() const { return s_; }
  operator stream_t() const { return s_; }
  void synchronize() const;

 private:
  explicit Stream(std::nullptr_t) {}
  stream_t s_ = nullptr;
};

// A CUDA event without timing, for ordering one stream after another (does nothing in a
// CPU-only build, where every stream is the null stream). Like Stream, it touches the GPU
// when constructed: host-memory paths must not make one.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(stream_t stream);
  void make_wait(stream_t stream) const;  // work queued on `stream` later waits for the record
  bool done() const;                      // the recorded work has completed (or nothing recorded)
  void synchronize() const;               // blocks the host until done()

 private:
  CUevent_st* event_ = nullptr;  // cudaEvent_t
};

// Waits for all work queued on `s` (the default stream when nullptr); no-op without CUDA.
void synchronize(stream_t s);

}  // namespace tessera
