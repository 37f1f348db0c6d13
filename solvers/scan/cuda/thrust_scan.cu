// Baseline: thrust::inclusive_scan / exclusive_scan on the scan's stream, without a host
// synchronisation (par_nosync) and with temporaries from a kept buffer instead of a
// cudaMalloc per call. With an offset or a wider output the init-value forms are used, so the
// sum accumulates in the output type.
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>
#include <cuda/std/functional>

#include <cstddef>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/kernels.hpp"

namespace tessera::scan::gpu {
namespace {

// Thrust's allocator interface over TempStorage. Thrust asks for one temporary per scan.
class TempAllocator {
 public:
  using value_type = char;
  explicit TempAllocator(TempStorage& temp) : temp_(&temp) {}
  char* allocate(std::ptrdiff_t bytes) { return static_cast<char*>(temp_->get(static_cast<std::size_t>(bytes))); }
  void deallocate(char*, std::size_t) {}

 private:
  TempStorage* temp_;
};

}  // namespace

template <class In, class Out>
void thrust_scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, TempStorage& temp,
                 stream_t stream) {
  if (n <= 0) return;
  TempAllocator alloc(temp);
  const auto policy = thrust::cuda::par_nosync(alloc).on(stream);
  const cuda::std::plus<Out> op{};
  if (mode == Mode::inclusive) {
    if (std::is_same_v<In, Out> && offset == Out(0))
      thrust::inclusive_scan(policy, in, in + n, out);
    else
      thrust::inclusive_scan(policy, in, in + n, out, offset, op);
  } else {
    thrust::exclusive_scan(policy, in, in + n, out, offset, op);
  }
  TESSERA_CUDA_CHECK_LAUNCH();
}

#define TESSERA_SCAN_INSTANTIATE(In, Out) \
  template void thrust_scan<In, Out>(const In*, Out*, std::int64_t, Mode, Out, TempStorage&, stream_t);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan::gpu
