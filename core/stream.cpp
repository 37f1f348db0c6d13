#include "core/stream.hpp"

#include "core/cuda_check.hpp"

namespace tessera {

Stream::Stream() {
#if defined(TESSERA_HAVE_CUDA)
  cudaStream_t s = nullptr;
  TESSERA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  s_ = s;
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
