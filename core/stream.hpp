#pragma once
// A CUDA stream handle that host-only code can pass around without the CUDA headers:
// cudaStream_t is `CUstream_st*`, so this is the same type. nullptr is the default stream,
// and the only value a CPU-only build ever sees.
struct CUstream_st;

namespace tessera {

using stream_t = CUstream_st*;

// Owns a non-blocking CUDA stream (or nothing in a CPU-only build).
class Stream {
 public:
  Stream();  // creates a cudaStreamNonBlocking stream when CUDA is available
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept : s_(other.s_) { other.s_ = nullptr; }
  Stream& operator=(Stream&& other) noexcept;

  stream_t get() const { return s_; }
  operator stream_t() const { return s_; }
  void synchronize() const;

 private:
  stream_t s_ = nullptr;
};

}  // namespace tessera
