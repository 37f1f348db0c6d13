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

#if defined(TESSERA_HAVE_CUDA)
Event::Event() {
  cudaEvent_t event = nullptr;
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  event_ = event;
}
Event::~Event() {
  if (event_) (void)cudaEventDestroy(event_);
}
void Event::record(stream_t stream) { TESSERA_CUDA_CHECK(cudaEventRecord(event_, stream)); }
void Event::make_wait(stream_t stream) const { TESSERA_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0)); }
bool Event::done() const {
  const cudaError_t err = cudaEventQuery(event_);
  if (err == cudaErrorNotReady) return false;
  TESSERA_CUDA_CHECK(err);
  return true;
}
void Event::synchronize() const { TESSERA_CUDA_CHECK(cudaEventSynchronize(event_)); }
#else
// Without CUDA all work is done when its call returns.
Event::Event() = default;
Event::~Event() = default;
void Event::record(stream_t) {}
void Event::make_wait(stream_t) const {}
bool Event::done() const { return true; }
void Event::synchronize() const {}
#endif

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
