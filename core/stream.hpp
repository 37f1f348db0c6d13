#pragma once
// A CUDA stream handle that host-only code can pass around without the CUDA headers:
// cudaStream_t is `CUstream_st*`, so this is the same type. nullptr is the default stream,
// and the only value a CPU-only build ever sees.
#include <cstddef>

struct CUstream_st;

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

// Waits for all work queued on `s` (the default stream when nullptr); no-op without CUDA.
void synchronize(stream_t s);

}  // namespace tessera
