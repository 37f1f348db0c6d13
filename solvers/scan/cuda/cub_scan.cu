// Baseline: cub::DeviceScan. The plain InclusiveSum/ExclusiveSum when input and output types
// agree and there is no offset (what the issue's reference numbers measure); otherwise the
// ...ScanInit/...Scan forms with the offset as initial value and plus<Out> (accumulating in
// the output type, so int32 -> int64 sums are exact). Element counts below 2^31 go to CUB as
// int, larger ones as int64, as a CUB user would.
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include <climits>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/kernels.hpp"

namespace tessera::scan::gpu {
namespace {

template <class In, class Out, class Count>
void run(const In* in, Out* out, Count n, Mode mode, Out offset, TempStorage& temp, stream_t stream) {
  constexpr bool same = std::is_same_v<In, Out>;
  const bool plain = same && offset == Out(0);
  const cuda::std::plus<Out> op{};
  std::size_t bytes = 0;
  // Twice: first to size the temporaries, then to scan.
  for (int pass = 0; pass < 2; ++pass) {
    void* storage = pass == 0 ? nullptr : temp.get(bytes);
    if (mode == Mode::inclusive) {
      if (plain)
        TESSERA_CUDA_CHECK(cub::DeviceScan::InclusiveSum(storage, bytes, in, out, n, stream));
      else
        TESSERA_CUDA_CHECK(cub::DeviceScan::InclusiveScanInit(storage, bytes, in, out, op, offset, n, stream));
    } else {
      if (plain)
        TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(storage, bytes, in, out, n, stream));
      else
        TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(storage, bytes, in, out, op, offset, n, stream));
    }
  }
}

}  // namespace

void* TempStorage::get(std::size_t bytes) {
  if (buffer_.bytes() < bytes) buffer_ = DeviceBuffer<char>(bytes);
  return buffer_.data();
}

template <class In, class Out>
void cub_scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, TempStorage& temp, stream_t stream) {
  if (n <= 0) return;
  if (n <= INT_MAX)
    run(in, out, static_cast<int>(n), mode, offset, temp, stream);
  else
    run(in, out, n, mode, offset, temp, stream);
}

#define TESSERA_SCAN_INSTANTIATE(In, Out) \
  template void cub_scan<In, Out>(const In*, Out*, std::int64_t, Mode, Out, TempStorage&, stream_t);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan::gpu
