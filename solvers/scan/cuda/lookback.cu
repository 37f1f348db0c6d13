// The single-pass scan with decoupled look-back (the kernels: lookback_kernels.cuh): the default
// policy of each type pair, the tile shapes the benchmark tunes, and the workspace.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/kernels.hpp"
#include "solvers/scan/cuda/lookback_candidates.cuh"
#include "solvers/scan/cuda/lookback_kernels.cuh"

namespace tessera::scan::gpu {
namespace {

// The default policies (tuned on sm_90 by `tessera bench scan`, H100, 2026-11-22): one bulk
// copy (TMA) moves a whole 64 KiB (int32) or 32 KiB (int64) tile into shared memory and one
// moves it back, tickets in launch order; 8-byte types keep status and value in one 16-byte
// word. int32: 1.058-1.076 x CUB at 2^26..2^30; int64: 1.03 x CUB at 2^28. Mixed input and
// output sizes stay on the registers engine. To make a candidate of lookback_candidates_<type>.cu the default, put its
// policy here (a candidate's name spells its policy, see lookback_candidates.cuh) and keep it
// in the candidate list (a test checks that the default is a candidate).
template <class In, class Out>
struct DefaultPolicy;
template <>
struct DefaultPolicy<std::int32_t, std::int32_t>
    : LookbackPolicy<256, 16, TileLoader::bulk, 1, LoadHint::nc, StoreHint::wb, TileOrder::ticket, 32, 512> {};
template <>
struct DefaultPolicy<std::int32_t, std::int64_t> : LookbackPolicy<128, 6> {};
template <>
struct DefaultPolicy<float, float>
    : LookbackPolicy<256, 16, TileLoader::bulk, 1, LoadHint::nc, StoreHint::wb, TileOrder::ticket, 32, 512> {};
template <>
struct DefaultPolicy<std::int64_t, std::int64_t>
    : LookbackPolicy<128, 16, TileLoader::bulk, 1, LoadHint::nc, StoreHint::wb, TileOrder::ticket, 32, 512,
                     StateLayout::packed16> {};
template <>
struct DefaultPolicy<double, double>
    : LookbackPolicy<128, 16, TileLoader::bulk, 1, LoadHint::nc, StoreHint::wb, TileOrder::ticket, 32, 512,
                     StateLayout::packed16> {};

}  // namespace

void LookbackWorkspace::prepare(std::int64_t tiles, TileStateLayout layout, stream_t stream) {
  // Per tile: 8 bytes (packed8), 4 + 8 + 8 (split) or 16 (packed16): 20 serves every 8-byte layout.
  const std::size_t per_tile = layout == TileStateLayout::packed8 ? 8 : 20;
  if (counter_.empty()) {
    counter_ = DeviceBuffer<unsigned long long>(1);
    TESSERA_CUDA_CHECK(cudaMemsetAsync(counter_.data(), 0, sizeof(unsigned long long), stream));
  }
  bool clear = false;
  const bool grow = tiles > capacity_;
  if (grow || state_.bytes() < static_cast<std::size_t>(capacity_) * per_tile + 256) {
    if (grow) capacity_ = std::max<std::int64_t>(tiles, 2 * capacity_);
    state_ = DeviceBuffer<char>(static_cast<std::size_t>(capacity_) * per_tile + 256);
    epoch_ = 0;
    clear = true;
  }
  if (layout != layout_) {
    layout_ = layout;
    clear = true;
  }
  if (++epoch_ > kMaxEpoch) {  // after 2^30 launches: start over from a clean state
    epoch_ = 1;
    clear = true;
  }
  if (clear) TESSERA_CUDA_CHECK(cudaMemsetAsync(state_.data(), 0, state_.bytes(), stream));
}

template <class In, class Out>
void lookback_scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, LookbackWorkspace& ws,
                   stream_t stream) {
  launch_lookback<DefaultPolicy<In, Out>>(in, out, n, mode, offset, ws, stream);
}

template <class In, class Out>
void lookback_scan_offset_at(const In* in, Out* out, std::int64_t n, Mode mode, const Out* offset,
                             LookbackWorkspace& ws, stream_t stream) {
  launch_lookback_at<DefaultPolicy<In, Out>>(in, out, n, mode, TileOffset<Out>(Out(0), offset), ws, stream);
}

bool lookback_scan_int32_shape(const std::int32_t* in, std::int32_t* out, std::int64_t n, Mode m, std::int32_t offset,
                               int threads, int items, LookbackWorkspace& ws, stream_t stream) {
  if (threads == 128 && items == 16) launch_lookback<LookbackPolicy<128, 4>>(in, out, n, m, offset, ws, stream);
  else if (threads == 128 && items == 24) launch_lookback<LookbackPolicy<128, 6>>(in, out, n, m, offset, ws, stream);
  else if (threads == 128 && items == 32) launch_lookback<LookbackPolicy<128, 8>>(in, out, n, m, offset, ws, stream);
  else if (threads == 256 && items == 16) launch_lookback<LookbackPolicy<256, 4>>(in, out, n, m, offset, ws, stream);
  else if (threads == 256 && items == 24) launch_lookback<LookbackPolicy<256, 6>>(in, out, n, m, offset, ws, stream);
  else return false;
  return true;
}

template <class T>
std::string lookback_default_name() {
  return candidate_name<DefaultPolicy<T, T>, T>();
}
template std::string lookback_default_name<std::int32_t>();
template std::string lookback_default_name<std::int64_t>();
template std::string lookback_default_name<float>();
template std::string lookback_default_name<double>();

#define TESSERA_SCAN_INSTANTIATE(In, Out)                                                                  \
  template void lookback_scan<In, Out>(const In*, Out*, std::int64_t, Mode, Out, LookbackWorkspace&, \
                                       stream_t);                                                    \
  template void lookback_scan_offset_at<In, Out>(const In*, Out*, std::int64_t, Mode, const Out*,    \
                                                 LookbackWorkspace&, stream_t);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan::gpu
