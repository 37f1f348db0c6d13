#include "core/stream.hpp"

#include "core/cuda_check.hpp"

namespace tessera {

Stream::Stream(StreamPriority priority) {
#if defined(TESSERA_HAVE_CUDA)
  // Numerically lower is more urgent; `greatest` is the most urgent the device offers.
  int least = 0, greatest = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s = nullptr;
  TESSERA_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
                                                  priority == StreamPriority::high ? greatest : least));
  s_ = s;
#else
  (void)priority;
#endif
}

Stream::~Stream() {
#if defined(TESSERA_HAVE_CUDA)
  if (s_) (void)cudaStreamDestroy(s_);
#endif
}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
#if defined(TESSERA_HAVE_CUDA)
    if (s_) (void)cudaStreamDestroy(s_);
#endif
    s_ = other.s_;
    other.s_ = nullptr;
  }
  return *this;
}

void Stream::synchronize() const {
  if (s_) tessera::synchronize(s_);
}

void synchronize(stream_t s) {
#if defined(TESSERA_HAVE_CUDA)
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(s));
#else
  (void)s;
#endif
}

}  // namespace tessera
