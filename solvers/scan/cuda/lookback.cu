// The single-pass scan with decoupled look-back: each element is read once and written once.
//
// A tile is Threads x Items elements. Ticket order: a block takes its tile index from a global
// atomic counter when it starts, so tile i is only ever waited on by tiles started after it
// (blockIdx order is not a promise of the hardware; the counter is). Inside the tile, each warp
// owns a contiguous segment of Rows x 32 x Vec elements loaded "warp-striped": row r of the
// warp is 32 lanes x one 16-byte vector (Vec elements), so every load and store instruction
// moves 512 contiguous bytes and the data never passes through shared memory.
//
// Per tile: thread sums of each vector -> one warp scan per row (interleaved) -> row carries ->
// warp totals through shared memory -> tile aggregate -> warp 0 looks back over up to 32
// predecessors at a time (one lane each, a ballot finds the nearest inclusive prefix, a
// butterfly sums the window) -> tile prefix -> each thread writes prefix + warp prefix + row
// carry + lane prefix + its running sum. Tile 0's prefix is the caller's offset, which is how
// the distributed scan's rank offset enters without another pass.
#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/device_common.cuh"
#include "solvers/scan/cuda/kernels.hpp"
#include "solvers/scan/cuda/tile_state.cuh"

namespace tessera::scan::gpu {
namespace {

template <class In, class Out, int Threads, int Rows>
struct LookbackShape {
  static constexpr int kThreads = Threads;
  static constexpr int kRows = Rows;
  static constexpr int kVec = kVec16<In>;
  static constexpr int kWarps = Threads / 32;
  static constexpr int kWarpItems = Rows * 32 * kVec;
  static constexpr std::int64_t kTileItems = std::int64_t{kWarps} * kWarpItems;
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps");
};

// The default shapes (tuned on sm_90 by `tessera bench scan`): about 96-128 bytes of input in
// flight per thread, 128 threads so that many blocks share a multiprocessor.
template <class In, class Out>
struct DefaultShape;
template <>
struct DefaultShape<std::int32_t, std::int32_t> : LookbackShape<std::int32_t, std::int32_t, 128, 6> {};
template <>
struct DefaultShape<std::int32_t, std::int64_t> : LookbackShape<std::int32_t, std::int64_t, 128, 6> {};
template <>
struct DefaultShape<float, float> : LookbackShape<float, float, 128, 6> {};
template <>
struct DefaultShape<std::int64_t, std::int64_t> : LookbackShape<std::int64_t, std::int64_t, 128, 8> {};
template <>
struct DefaultShape<double, double> : LookbackShape<double, double, 128, 8> {};

template <class Out>
using StateFor = std::conditional_t<sizeof(Out) == 4, PackedTileState<Out>, SplitTileState<Out>>;

// Warp 0 of a tile: publishes the aggregate, finds the exclusive prefix, publishes the inclusive.
template <class Out, class State>
__device__ __forceinline__ Out tile_lookback(const State& state, std::int64_t tile, Out aggregate, Out offset,
                                             int lane) {
  if (tile == 0) {
    if (lane == 0) state.publish(0, kTileInclusive, scan_add(offset, aggregate));
    return offset;
  }
  if (lane == 0) state.publish(tile, kTileAggregate, aggregate);
  Out exclusive = Out(0);
  std::int64_t nearest = tile - 1;  // the predecessor lane 0 looks at in this round
  while (true) {
    const std::int64_t pred = nearest - lane;
    // Tile 0 always publishes an inclusive prefix, so lanes past it are never summed.
    const TileStatus<Out> s = pred >= 0 ? wait_ready(state, pred) : TileStatus<Out>{true, true, Out(0)};
    const unsigned inclusive = __ballot_sync(kFullMask, s.inclusive);
    const int stop = inclusive ? __ffs(inclusive) - 1 : 31;  // the nearest inclusive prefix
    const Out window = warp_sum(lane <= stop ? s.value : Out(0));
    exclusive = scan_add(window, exclusive);
    if (inclusive) break;
    nearest -= 32;
  }
  if (lane == 0) state.publish(tile, kTileInclusive, scan_add(exclusive, aggregate));
  return exclusive;
}

template <class Shape, bool Exclusive, class In, class Out, class State>
__global__ void __launch_bounds__(Shape::kThreads)
    lookback_kernel(const In* in, Out* out, std::int64_t n, Out offset, State state,
                    unsigned long long* tile_counter, unsigned long long counter_base, bool aligned) {
  constexpr int V = Shape::kVec, R = Shape::kRows, W = Shape::kWarps;
  __shared__ long long s_tile;
  __shared__ Out s_warp_total[W];
  __shared__ Out s_prefix;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  if (threadIdx.x == 0) s_tile = static_cast<long long>(atomicAdd(tile_counter, 1ull) - counter_base);
  __syncthreads();
  const std::int64_t tile = s_tile;
  const std::int64_t segment = tile * Shape::kTileItems + std::int64_t{warp} * Shape::kWarpItems;
  const bool full = aligned && (tile + 1) * Shape::kTileItems <= n;

  Out v[R][V];
  if (full) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      In x[V];
      load16(in + segment + (r * 32 + lane) * V, x);
#pragma unroll
      for (int k = 0; k < V; ++k) v[r][k] = static_cast<Out>(x[k]);
    }
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const std::int64_t i = segment + (r * 32 + lane) * V + k;
        v[r][k] = i < n ? static_cast<Out>(in[i]) : Out(0);
      }
  }

  // Thread sums of each vector, scanned across the warp row by row.
  Out incl[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    incl[r] = v[r][0];
#pragma unroll
    for (int k = 1; k < V; ++k) incl[r] = scan_add(incl[r], v[r][k]);
  }
  warp_inclusive_scan(incl, lane);
  Out row_base[R];
  Out warp_total = Out(0);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    row_base[r] = warp_total;
    warp_total = scan_add(warp_total, shfl_idx(incl[r], 31));
  }
  if (lane == 0) s_warp_total[warp] = warp_total;
  __syncthreads();

  Out warp_prefix = Out(0), aggregate = Out(0);
#pragma unroll
  for (int w = 0; w < W; ++w) {
    if (w == warp) warp_prefix = aggregate;
    aggregate = scan_add(aggregate, s_warp_total[w]);
  }
  if (warp == 0) {
    const Out prefix = tile_lookback(state, tile, aggregate, offset, lane);
    if (lane == 0) s_prefix = prefix;
  }
  __syncthreads();

  const Out base = scan_add(s_prefix, warp_prefix);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    Out lane_prefix = shfl_up(incl[r], 1);
    if (lane == 0) lane_prefix = Out(0);
    Out run = scan_add(scan_add(base, row_base[r]), lane_prefix);
    Out o[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      if constexpr (Exclusive) {
        o[k] = run;
        run = scan_add(run, v[r][k]);
      } else {
        run = scan_add(run, v[r][k]);
        o[k] = run;
      }
    }
    const std::int64_t first = segment + (r * 32 + lane) * V;
    if (full) {
      store16(out + first, o);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (first + k < n) out[first + k] = o[k];
    }
  }
}

template <class Shape, class In, class Out>
void launch(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, LookbackWorkspace& ws, stream_t stream) {
  if (n <= 0) return;
  const std::int64_t tiles = ceil_div(n, Shape::kTileItems);
  if (tiles > INT_MAX) throw std::length_error("lookback scan: too many tiles for one launch");
  ws.prepare(tiles, sizeof(Out), stream);
  StateFor<Out> state;
  if constexpr (sizeof(Out) == 4) {
    state = {ws.words(), ws.epoch()};
  } else {
    state = {ws.flags(), reinterpret_cast<Out*>(ws.aggregates()), reinterpret_cast<Out*>(ws.inclusives()), ws.epoch()};
  }
  const bool aligned = aligned16(in) && aligned16(out);
  const auto grid = static_cast<unsigned>(tiles);
  if (mode == Mode::exclusive)
    lookback_kernel<Shape, true><<<grid, Shape::kThreads, 0, stream>>>(in, out, n, offset, state, ws.counter(),
                                                                       ws.counter_base(), aligned);
  else
    lookback_kernel<Shape, false><<<grid, Shape::kThreads, 0, stream>>>(in, out, n, offset, state, ws.counter(),
                                                                        ws.counter_base(), aligned);
  TESSERA_CUDA_CHECK_LAUNCH();
  ws.consumed(tiles);
}

}  // namespace

void LookbackWorkspace::prepare(std::int64_t tiles, int value_bytes, stream_t stream) {
  const std::size_t per_tile = value_bytes == 4 ? 8 : 4 + 8 + 8;
  if (counter_.empty()) {
    counter_ = DeviceBuffer<unsigned long long>(1);
    TESSERA_CUDA_CHECK(cudaMemsetAsync(counter_.data(), 0, sizeof(unsigned long long), stream));
  }
  bool clear = false;
  if (tiles > capacity_) {
    capacity_ = std::max<std::int64_t>(tiles, 2 * capacity_);
    state_ = DeviceBuffer<char>(static_cast<std::size_t>(capacity_) * per_tile + 256);
    epoch_ = 0;
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
  launch<DefaultShape<In, Out>>(in, out, n, mode, offset, ws, stream);
}

bool lookback_scan_int32_shape(const std::int32_t* in, std::int32_t* out, std::int64_t n, Mode m, std::int32_t offset,
                               int threads, int items, LookbackWorkspace& ws, stream_t stream) {
  using I = std::int32_t;
  if (threads == 128 && items == 16) launch<LookbackShape<I, I, 128, 4>>(in, out, n, m, offset, ws, stream);
  else if (threads == 128 && items == 24) launch<LookbackShape<I, I, 128, 6>>(in, out, n, m, offset, ws, stream);
  else if (threads == 128 && items == 32) launch<LookbackShape<I, I, 128, 8>>(in, out, n, m, offset, ws, stream);
  else if (threads == 256 && items == 16) launch<LookbackShape<I, I, 256, 4>>(in, out, n, m, offset, ws, stream);
  else if (threads == 256 && items == 24) launch<LookbackShape<I, I, 256, 6>>(in, out, n, m, offset, ws, stream);
  else return false;
  return true;
}

#define TESSERA_SCAN_INSTANTIATE(In, Out)                                                                  \
  template void lookback_scan<In, Out>(const In*, Out*, std::int64_t, Mode, Out, LookbackWorkspace&, \
                                       stream_t);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan::gpu
