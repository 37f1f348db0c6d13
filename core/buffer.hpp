#pragma once
// RAII buffers: DeviceBuffer (cudaMalloc) and PinnedBuffer (cudaMallocHost, page-locked so
// transfers are asynchronous and run at full PCIe/NVLink speed). Move-only; sizes in elements.
// In a CPU-only build DeviceBuffer throws on allocation and PinnedBuffer uses ordinary memory.
#include <cstddef>
#include <span>
#include <utility>

#include "core/stream.hpp"

namespace tessera {

namespace detail {
void* device_alloc(std::size_t bytes);
void device_free(void* p) noexcept;
void* pinned_alloc(std::size_t bytes);
void pinned_free(void* p) noexcept;
}  // namespace detail

// Byte copies between any two memories (cudaMemcpyDefault): complete on return, or ordered on
// `stream`.
void copy_bytes(void* dst, const void* src, std::size_t bytes);
void copy_bytes_async(void* dst, const void* src, std::size_t bytes, stream_t stream);
// Fills `bytes` bytes of device memory with `value` (e.g. 0xFF to poison before a kernel);
// complete on return, so work on any stream sees it.
void fill_device_bytes(void* dst, unsigned char value, std::size_t bytes);

template <class T, void* (*Alloc)(std::size_t), void (*Free)(void*) noexcept>
class OwningBuffer {
 public:
  OwningBuffer() = default;
  explicit OwningBuffer(std::size_t n) : n_(n) {
    if (n_ > 0) p_ = static_cast<T*>(Alloc(n_ * sizeof(T)));
  }
  ~OwningBuffer() { Free(p_); }
  OwningBuffer(const OwningBuffer&) = delete;
  OwningBuffer& operator=(const OwningBuffer&) = delete;
  OwningBuffer(OwningBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  OwningBuffer& operator=(OwningBuffer&& o) noexcept {
    if (this != &o) {
      Free(p_);
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  bool empty() const { return n_ == 0; }
  std::span<T> span() { return {p_, n_}; }
  std::span<const T> span() const { return {p_, n_}; }

  // Host<->buffer copies (synchronous). `host` must hold size() elements.
  void upload(std::span<const T> host) { copy_bytes(p_, host.data(), checked(host.size())); }
  void download(std::span<T> host) const { copy_bytes(host.data(), p_, checked(host.size())); }

 private:
  std::size_t checked(std::size_t n) const;
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

template <class T>
using DeviceBuffer = OwningBuffer<T, detail::device_alloc, detail::device_free>;
template <class T>
using PinnedBuffer = OwningBuffer<T, detail::pinned_alloc, detail::pinned_free>;

void throw_buffer_size_mismatch(std::size_t have, std::size_t want);

template <class T, void* (*A)(std::size_t), void (*F)(void*) noexcept>
std::size_t OwningBuffer<T, A, F>::checked(std::size_t n) const {
  if (n != n_) throw_buffer_size_mismatch(n, n_);
  return n * sizeof(T);
}

}  // namespace tessera
