#include "core/buffer.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "core/backend.hpp"
#include "core/cuda_check.hpp"

namespace tessera {
namespace detail {

void* device_alloc(std::size_t bytes) {
#if defined(TESSERA_HAVE_CUDA)
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    (void)cudaMemGetInfo(&free_b, &total_b);
    throw CudaError(fmt::format("cudaMalloc of {:.3f} GiB failed ({}); the device has {:.3f} GiB free of {:.3f} GiB",
                                bytes / 1073741824.0, cudaGetErrorString(err), free_b / 1073741824.0,
                                total_b / 1073741824.0));
  }
  return p;
#else
  (void)bytes;
  throw CudaError("device memory requested, but this tessera was built without CUDA");
#endif
}

void device_free(void* p) noexcept {
#if defined(TESSERA_HAVE_CUDA)
  if (p) (void)cudaFree(p);
#else
  (void)p;
#endif
}

void* pinned_alloc(std::size_t bytes) {
#if defined(TESSERA_HAVE_CUDA)
  void* p = nullptr;
  if (cudaMallocHost(&p, bytes) == cudaSuccess) return p;
  (void)cudaGetLastError();  // no driver: fall back to pageable memory, still correct
#endif
  void* q = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!q) throw std::bad_alloc();
  return q;
}

void pinned_free(void* p) noexcept {
  if (!p) return;
#if defined(TESSERA_HAVE_CUDA)
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeHost) {
    (void)cudaFreeHost(p);
    return;
  }
  (void)cudaGetLastError();
#endif
  std::free(p);
}

#if defined(TESSERA_HAVE_CUDA)
void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("CUDA error '{}' ({}) in {} at {}:{}", cudaGetErrorString(err),
                              cudaGetErrorName(err), call, file, line));
}
#endif

}  // namespace detail

namespace {
// A CUDA build on a machine without a driver or device only ever holds host memory.
[[maybe_unused]] bool device_present() {
  static const bool present = visible_device_count() > 0;
  return present;
}
}  // namespace

void copy_bytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
#if defined(TESSERA_HAVE_CUDA)
  if (!device_present()) {
    std::memcpy(dst, src, bytes);
    return;
  }
  TESSERA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  // A device-to-device cudaMemcpy may return before it is done; "synchronous" means done.
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(nullptr));
#else
  std::memcpy(dst, src, bytes);
#endif
}

void copy_bytes_async(void* dst, const void* src, std::size_t bytes, stream_t stream) {
  if (bytes == 0) return;
#if defined(TESSERA_HAVE_CUDA)
  if (!device_present()) {
    std::memcpy(dst, src, bytes);
    return;
  }
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
#else
  (void)stream;
  std::memcpy(dst, src, bytes);
#endif
}

void fill_device_bytes(void* dst, unsigned char value, std::size_t bytes) {
#if defined(TESSERA_HAVE_CUDA)
  TESSERA_CUDA_CHECK(cudaMemset(dst, value, bytes));
  // cudaMemset returns early and is not ordered with non-blocking streams: wait for it.
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(nullptr));
#else
  std::memset(dst, value, bytes);
#endif
}

void throw_buffer_size_mismatch(std::size_t have, std::size_t want) {
  throw std::length_error(fmt::format("buffer copy of {} elements into/from a buffer of {}", have, want));
}

}  // namespace tessera
