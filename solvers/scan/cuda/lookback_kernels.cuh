#pragma once
// The single-pass scan with decoupled look-back, parameterized by a policy, and its launcher.
// lookback.cu instantiates the default policies, lookback_candidates_<type>.cu the candidates
// that `tessera bench scan` compares (TESSERA_BENCH_SCAN_LOOKBACK).
//
// A tile is Threads x Items elements; each warp owns a contiguous segment of Rows x 32 x Vec
// elements, row r being 32 lanes x one 16-byte vector (Vec elements), so every warp access moves
// 512 contiguous bytes. Per tile: thread sums of each vector -> one warp scan per row
// (interleaved) -> row carries -> warp totals through shared memory -> tile aggregate -> warp 0
// looks back over up to 32 predecessors at a time (one lane each, a ballot finds the nearest
// inclusive prefix, a butterfly sums the window) -> tile prefix -> every element's result.
// Tile 0's prefix is the caller's offset (how the distributed scan's rank offset enters): a
// value, or one that work queued earlier on the stream writes to device memory (TileOffset).
//
// Engines (how a tile travels):
//  - registers: 16-byte vector loads straight into registers and 16-byte stores back, one tile
//    per block (grid = tiles).
//  - bulk: one cp.async.bulk (TMA, 1-D) brings the whole tile into shared memory (completion on
//    an mbarrier), the threads scan it there (two passes over shared memory, so registers do not
//    limit the tile), and one cp.async.bulk writes it back. One tile per block.
//  - bulk_persistent: as bulk, but a resident grid whose blocks loop over tiles with Stages
//    shared-memory buffers: while a block scans one tile, the next Stages - 1 are on their way.
// Tile order:
//  - ticket: a block (or, persistent, its thread 0 for each buffer) takes its tile index from a
//    global atomic counter, so a tile only waits for tiles already taken by running blocks: no
//    deadlock whatever order the hardware starts blocks in.
//  - block_index: tile = blockIdx.x (as CUB does), saving the atomic before the loads; relies on
//    the hardware starting blocks in index order (not a documented guarantee).
// Partial last tiles and buffers that are not 16-byte aligned take guarded scalar paths (the
// bulk engines fall back to the registers engine for unaligned buffers, and for input and
// output types that differ).
//
// Bulk-copy protocol (as in the CUDA programming guide's 1-D TMA example): thread 0 initializes
// the mbarrier and fences it for the async proxy, arms it with the tile's byte count and starts
// the copy; every thread waits on the phase parity (acquire), scans, writes its results into the
// buffer and executes fence.proxy.async.shared::cta; after __syncthreads thread 0 starts the
// store, commits it as a bulk group and waits for its reads of shared memory before the buffer
// is reused or the block exits.
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/device_common.cuh"
#include "solvers/scan/cuda/kernels.hpp"
#include "solvers/scan/cuda/tile_state.cuh"

namespace tessera::scan::gpu {

// How a tile reaches shared memory: loads through registers, or TMA bulk copies (one-shot or
// by a persistent block). ("Engine" means a backend implementation elsewhere in tessera.)
enum class TileLoader { registers, bulk, bulk_persistent };
enum class TileOrder { ticket, block_index };
enum class StateLayout { automatic, packed16 };  // packed16: 8-byte values in 16-byte words

template <int Threads, int Rows, TileLoader E = TileLoader::registers, int Stages = 1, LoadHint Load = LoadHint::nc,
          StoreHint Store = StoreHint::wb, TileOrder Order = TileOrder::ticket, int PollFirstNs = 32,
          int PollMaxNs = 512, StateLayout Layout = StateLayout::automatic>
struct LookbackPolicy {
  static constexpr int kThreads = Threads;
  static constexpr int kRows = Rows;
  static constexpr TileLoader kEngine = E;
  static constexpr int kStages = Stages;
  static constexpr LoadHint kLoad = Load;
  static constexpr StoreHint kStore = Store;
  static constexpr TileOrder kOrder = Order;
  static constexpr int kPollFirstNs = PollFirstNs;
  static constexpr int kPollMaxNs = PollMaxNs;
  static constexpr StateLayout kLayout = Layout;
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps");
  static_assert(E == TileLoader::bulk_persistent ? Stages >= 2 : Stages == 1,
                "persistent blocks need at least 2 buffers (the ticket hand-over relies on it), others 1");
  static_assert(E == TileLoader::registers || (Load != LoadHint::cs && Load != LoadHint::lu && Store != StoreHint::cs),
                "bulk copies take no .cs/.lu hints (evict_first becomes an L2 cache policy)");
  static_assert(E != TileLoader::bulk_persistent || Order == TileOrder::ticket, "persistent blocks take tickets");
};

// The same tile shape on the registers engine: the fallback of the bulk engines (unaligned
// buffers, or input and output types of different sizes).
template <class P>
using RegistersPolicyOf =
    LookbackPolicy<P::kThreads, P::kRows, TileLoader::registers, 1, LoadHint::nc, StoreHint::wb,
                   P::kEngine == TileLoader::bulk_persistent ? TileOrder::ticket : P::kOrder, P::kPollFirstNs,
                   P::kPollMaxNs, P::kLayout>;

template <class P, class In>
struct TileShape {
  static constexpr int kVec = kVec16<In>;
  static constexpr int kRows = P::kRows;
  static constexpr int kWarps = P::kThreads / 32;
  static constexpr int kWarpItems = kRows * 32 * kVec;
  static constexpr std::int64_t kTileItems = std::int64_t{kWarps} * kWarpItems;
  static constexpr int kItems = kRows * kVec;  // per thread
};

template <class Out, StateLayout L>
using StateFor =
    std::conditional_t<sizeof(Out) == 4, PackedTileState<Out>,
                       std::conditional_t<L == StateLayout::packed16, PackedTileState16<Out>, SplitTileState<Out>>>;

template <class Out, StateLayout L>
constexpr TileStateLayout layout_of() {
  if constexpr (sizeof(Out) == 4) return TileStateLayout::packed8;
  else if constexpr (L == StateLayout::packed16) return TileStateLayout::packed16;
  else return TileStateLayout::split;
}

template <class Out, StateLayout L>
StateFor<Out, L> make_state(LookbackWorkspace& ws) {
  if constexpr (sizeof(Out) == 4)
    return {ws.words(), ws.epoch()};
  else if constexpr (L == StateLayout::packed16)
    return {ws.words(), ws.epoch()};
  else
    return {ws.flags(), reinterpret_cast<Out*>(ws.aggregates()), reinterpret_cast<Out*>(ws.inclusives()), ws.epoch()};
}

// ---- the parts every engine shares -------------------------------------------------------------

// What tile 0 starts from: `value`, or, with `device` set, the Out there when the kernel runs
// (the distributed scan's rank offset, computed on the device by the work queued before it:
// no host round trip between the exchange of the totals and the scan).
template <class Out>
struct TileOffset {
  Out value = Out(0);
  const Out* device = nullptr;
  TileOffset() = default;
  TileOffset(Out v) : value(v) {}  // NOLINT: a plain offset converts
  TileOffset(Out v, const Out* d) : value(v), device(d) {}
  __device__ __forceinline__ Out get() const { return device ? *device : value; }
};

// Warp 0 of a tile: publishes the aggregate, finds the exclusive prefix, publishes the inclusive.
// The result is valid in every lane of warp 0.
template <class P, class Out, class State>
__device__ __forceinline__ Out tile_lookback(const State& state, std::int64_t tile, Out aggregate,
                                             const TileOffset<Out>& offset, int lane) {
  if (tile == 0) {
    const Out first = offset.get();
    if (lane == 0) state.publish(0, kTileInclusive, scan_add(first, aggregate));
    return first;
  }
  if (lane == 0) state.publish(tile, kTileAggregate, aggregate);
  Out exclusive = Out(0);
  std::int64_t nearest = tile - 1;  // the predecessor lane 0 looks at in this round
  while (true) {
    const std::int64_t pred = nearest - lane;
    // Tile 0 always publishes an inclusive prefix, so lanes past it are never summed.
    const TileStatus<Out> s = pred >= 0 ? wait_ready<P::kPollFirstNs, P::kPollMaxNs>(state, pred)
                                        : TileStatus<Out>{true, true, Out(0)};
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

// Block-wide: x[r] holds the sum of this thread's vector in row r; on return, the sum of
// everything before that vector (the tile prefix from the look-back included). Contains two
// __syncthreads; s_warp_total (one per warp) and s_prefix are shared scratch.
template <class P, class Out, class State, int R>
__device__ __forceinline__ void vector_starts(Out (&x)[R], std::int64_t tile, const TileOffset<Out>& offset, const State& state,
                                              Out* s_warp_total, Out* s_prefix, int lane, int warp) {
  constexpr int W = P::kThreads / 32;
  warp_inclusive_scan(x, lane);
  Out row_base[R];
  Out warp_total = Out(0);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    row_base[r] = warp_total;
    warp_total = scan_add(warp_total, shfl_idx(x[r], 31));
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
    const Out prefix = tile_lookback<P>(state, tile, aggregate, offset, lane);
    if (lane == 0) *s_prefix = prefix;
  }
  __syncthreads();

  const Out base = scan_add(*s_prefix, warp_prefix);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    Out lane_prefix = shfl_up(x[r], 1);
    if (lane == 0) lane_prefix = Out(0);
    x[r] = scan_add(scan_add(base, row_base[r]), lane_prefix);
  }
}

// The results of one vector whose predecessors sum to `run`.
template <bool Exclusive, class Out, class V, int N>
__device__ __forceinline__ void scan_vector(Out run, const V (&v)[N], Out (&o)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if constexpr (Exclusive) {
      o[k] = run;
      run = scan_add(run, static_cast<Out>(v[k]));
    } else {
      run = scan_add(run, static_cast<Out>(v[k]));
      o[k] = run;
    }
  }
}

template <class T, int N>
__device__ __forceinline__ T vector_sum(const T (&v)[N]) {
  T s = v[0];
#pragma unroll
  for (int k = 1; k < N; ++k) s = scan_add(s, v[k]);
  return s;
}

__device__ __forceinline__ std::int64_t take_ticket(unsigned long long* counter, unsigned long long base) {
  return static_cast<std::int64_t>(atomicAdd(counter, 1ull) - base);
}

// ---- registers engine ------------------------------------------------------------------------

template <class P, bool Exclusive, class In, class Out, class State>
__global__ void __launch_bounds__(P::kThreads)
    lookback_registers_kernel(const In* in, Out* out, std::int64_t n, TileOffset<Out> offset, State state,
                              unsigned long long* tile_counter, unsigned long long counter_base, bool aligned) {
  using Sh = TileShape<P, In>;
  constexpr int V = Sh::kVec, R = Sh::kRows, W = Sh::kWarps;
  __shared__ Out s_warp_total[W];
  __shared__ Out s_prefix;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  std::int64_t tile;
  if constexpr (P::kOrder == TileOrder::ticket) {
    __shared__ long long s_tile;
    if (threadIdx.x == 0) s_tile = take_ticket(tile_counter, counter_base);
    __syncthreads();
    tile = s_tile;
  } else {
    tile = blockIdx.x;
  }
  const std::int64_t segment = tile * Sh::kTileItems + std::int64_t{warp} * Sh::kWarpItems;
  const bool full = aligned && (tile + 1) * Sh::kTileItems <= n;

  Out v[R][V];
  if (full) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      In x[V];
      load16<P::kLoad>(in + segment + (r * 32 + lane) * V, x);
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

  Out start[R];
#pragma unroll
  for (int r = 0; r < R; ++r) start[r] = vector_sum(v[r]);
  vector_starts<P>(start, tile, offset, state, s_warp_total, &s_prefix, lane, warp);

#pragma unroll
  for (int r = 0; r < R; ++r) {
    Out o[V];
    scan_vector<Exclusive>(start[r], v[r], o);
    const std::int64_t first = segment + (r * 32 + lane) * V;
    if (full) {
      store16<P::kStore>(out + first, o);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (first + k < n) out[first + k] = o[k];
    }
  }
}

// ---- bulk engines ----------------------------------------------------------------------------

namespace bulk {

namespace ptx = cuda::ptx;

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Bulk copies need 16-byte aligned shared memory; the dynamic region is rounded up to 128 bytes
// here rather than trusting where it starts after the static variables (launches add kAlignSlack).
constexpr std::size_t kAlignSlack = 128;
template <class T>
__device__ __forceinline__ T* aligned_dynamic_shared(unsigned char* base) {
  const unsigned pad = (kAlignSlack - (shared_address(base) & (kAlignSlack - 1))) & (kAlignSlack - 1);
  return reinterpret_cast<T*>(base + pad);
}

// Global -> shared, completing `bytes` transaction bytes on `bar` (armed by the caller).
template <LoadHint H>
__device__ __forceinline__ void load(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  if constexpr (H == LoadHint::evict_first) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
        :
        : "r"(shared_address(dst)), "l"(src), "r"(bytes), "r"(shared_address(bar)), "l"(l2_evict_first_policy())
        : "memory");
  } else {
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst, src, bytes, bar);
  }
}

// Shared -> global as one bulk async-group.
template <StoreHint H>
__device__ __forceinline__ void store(void* dst, const void* src, std::uint32_t bytes) {
  if constexpr (H == StoreHint::evict_first) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;"
                 :
                 : "l"(dst), "r"(shared_address(src)), "r"(bytes), "l"(l2_evict_first_policy())
                 : "memory");
  } else {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst, src, bytes);
  }
  ptx::cp_async_bulk_commit_group();
}

// Waits (every calling thread) until phase `parity` of `bar` completed; acquire at CTA scope, so
// the bytes the bulk copy wrote are visible afterwards.
__device__ __forceinline__ void wait(std::uint64_t* bar, unsigned parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// One thread: arms `bar` for a tile of `bytes` and starts its copy into `dst`.
template <LoadHint H>
__device__ __forceinline__ void start_tile(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar, bytes);
  load<H>(dst, src, bytes, bar);
}

// The scan of one tile held in shared memory `data` (the whole tile: full tiles arrived by bulk
// copy; for the partial last tile the threads load it here, zeros past n). Full tiles are left
// in `data` for the bulk store (made visible to the async proxy; the caller synchronizes and
// stores); the partial tile is written to `out` directly.
template <class P, bool Exclusive, class T, class State>
__device__ __forceinline__ void scan_tile(T* data, const T* in, T* out, std::int64_t n, std::int64_t tile, bool full,
                                          const TileOffset<T>& offset, const State& state, T* s_warp_total,
                                          T* s_prefix) {
  using Sh = TileShape<P, T>;
  constexpr int V = Sh::kVec, R = Sh::kRows;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T* mine = data + warp * Sh::kWarpItems + lane * V;  // row r at mine + r * 32 * V
  const std::int64_t first = tile * Sh::kTileItems + std::int64_t{warp} * Sh::kWarpItems + lane * V;

  // Pass 1: vector sums (the partial tile is brought into shared memory on the way).
  T start[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    T x[V];
    if (full) {
      load16_shared(mine + r * 32 * V, x);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const std::int64_t i = first + r * 32 * V + k;
        x[k] = i < n ? in[i] : T(0);
      }
      store16_shared(mine + r * 32 * V, x);
    }
    start[r] = vector_sum(x);
  }
  vector_starts<P>(start, tile, offset, state, s_warp_total, s_prefix, lane, warp);

  // Pass 2: the results, in place (each thread rereads only what it wrote itself).
#pragma unroll
  for (int r = 0; r < R; ++r) {
    T x[V], o[V];
    load16_shared(mine + r * 32 * V, x);
    scan_vector<Exclusive>(start[r], x, o);
    if (full) {
      store16_shared(mine + r * 32 * V, o);
    } else {
      const std::int64_t at = first + r * 32 * V;
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (at + k < n) out[at + k] = o[k];
    }
  }
  // This thread's shared-memory writes, visible to the bulk store (the async proxy).
  ptx::fence_proxy_async(ptx::space_shared);
}

}  // namespace bulk

// One tile per block. Dynamic shared memory: one tile (+ alignment slack).
template <class P, bool Exclusive, class T, class State>
__global__ void __launch_bounds__(P::kThreads)
    lookback_bulk_kernel(const T* in, T* out, std::int64_t n, TileOffset<T> offset, State state, unsigned long long* tile_counter,
                         unsigned long long counter_base) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // bulk copies need sm_90; the host never launches this kernel on older GPUs
#else
  using Sh = TileShape<P, T>;
  constexpr auto kBytes = static_cast<std::uint32_t>(Sh::kTileItems * sizeof(T));
  extern __shared__ __align__(128) unsigned char s_dynamic[];
  T* data = bulk::aligned_dynamic_shared<T>(s_dynamic);
  __shared__ __align__(8) std::uint64_t s_full;  // mbarrier: the tile has arrived
  __shared__ long long s_tile;
  __shared__ T s_warp_total[Sh::kWarps];
  __shared__ T s_prefix;

  if (threadIdx.x == 0) {
    const std::int64_t tile =
        P::kOrder == TileOrder::ticket ? take_ticket(tile_counter, counter_base) : std::int64_t{blockIdx.x};
    s_tile = tile;
    if ((tile + 1) * Sh::kTileItems <= n) {
      cuda::ptx::mbarrier_init(&s_full, 1);
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the initialized barrier, for the async proxy
      bulk::start_tile<P::kLoad>(data, in + tile * Sh::kTileItems, kBytes, &s_full);
    }
  }
  __syncthreads();
  const std::int64_t tile = s_tile;
  const bool full = (tile + 1) * Sh::kTileItems <= n;
  if (full) bulk::wait(&s_full, 0);
  bulk::scan_tile<P, Exclusive>(data, in, out, n, tile, full, offset, state, s_warp_total, &s_prefix);
  if (full) {
    __syncthreads();  // every thread's results are in `data` (and fenced)
    if (threadIdx.x == 0) {
      bulk::store<P::kStore>(out + tile * Sh::kTileItems, data, kBytes);
      // Shared memory must outlive the copy's reads of it.
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
    }
  }
#endif
}

// Resident blocks looping over tiles. Dynamic shared memory: Stages tiles (+ alignment slack). Thread 0 takes the
// tickets and moves the data; a buffer is refilled as soon as its bulk store has read it, so the
// next Stages - 1 tiles load while the block scans one. Each block takes tickets until it draws
// one past the last tile, and then no more: a launch consumes exactly tiles + gridDim.x tickets.
// Deadlock-free: a block handles its tickets in the order it took them, so the holder of the
// smallest unfinished ticket is working on it, and that tile waits only on smaller ones.
template <class P, bool Exclusive, class T, class State>
__global__ void __launch_bounds__(P::kThreads)
    lookback_bulk_persistent_kernel(const T* in, T* out, std::int64_t n, std::int64_t tiles, TileOffset<T> offset, State state,
                                    unsigned long long* tile_counter, unsigned long long counter_base) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // bulk copies need sm_90; the host never launches this kernel on older GPUs
#else
  using Sh = TileShape<P, T>;
  constexpr int S = P::kStages;
  constexpr auto kBytes = static_cast<std::uint32_t>(Sh::kTileItems * sizeof(T));
  extern __shared__ __align__(128) unsigned char s_dynamic[];
  __shared__ __align__(8) std::uint64_t s_full[S];  // mbarriers: buffer s holds its tile
  __shared__ long long s_tile[S];                    // the tile buffer s holds (>= tiles: none)
  __shared__ T s_warp_total[Sh::kWarps];
  __shared__ T s_prefix;
  T* const buffers = bulk::aligned_dynamic_shared<T>(s_dynamic);
  auto buffer = [&](int s) { return buffers + s * Sh::kTileItems; };

  // Thread 0 only: whether it drew a ticket past the last tile.
  bool exhausted = false;
  // Thread 0: records `ticket` (a fresh draw, or none once exhausted) for buffer s and starts
  // its copy. The partial last tile is loaded by the threads; a plain arrival completes the
  // buffer's phase all the same, so the phases of every buffer stay in step with its uses.
  auto fill = [&](int s, std::int64_t ticket) {
    if (exhausted || ticket >= tiles) {
      exhausted = true;
      s_tile[s] = tiles;
      return;
    }
    s_tile[s] = ticket;
    if ((ticket + 1) * Sh::kTileItems <= n)
      bulk::start_tile<P::kLoad>(buffer(s), in + ticket * Sh::kTileItems, kBytes, &s_full[s]);
    else
      (void)cuda::ptx::mbarrier_arrive(&s_full[s]);
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) cuda::ptx::mbarrier_init(&s_full[s], 1);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the initialized barriers, for the async proxy
    for (int s = 0; s < S; ++s) fill(s, exhausted ? tiles : take_ticket(tile_counter, counter_base));
  }
  __syncthreads();

  for (int k = 0;; ++k) {
    const int s = k % S;
    // Written by thread 0 at least one full iteration (with its __syncthreads) ago: S >= 2.
    const std::int64_t tile = s_tile[s];
    if (tile >= tiles) break;  // tickets grow with k: every later buffer is empty too
    // The ticket for this buffer's next use, drawn now so that its latency hides behind the scan.
    std::int64_t next = tiles;
    if (threadIdx.x == 0 && !exhausted) next = take_ticket(tile_counter, counter_base);

    const bool full = (tile + 1) * Sh::kTileItems <= n;
    bulk::wait(&s_full[s], static_cast<unsigned>(k / S) & 1u);
    bulk::scan_tile<P, Exclusive>(buffer(s), in, out, n, tile, full, offset, state, s_warp_total, &s_prefix);
    __syncthreads();  // results in the buffer (fenced), and every thread is done with it
    if (threadIdx.x == 0) {
      if (full) {
        bulk::store<P::kStore>(out + tile * Sh::kTileItems, buffer(s), kBytes);
        cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());  // before the buffer is refilled
      }
      fill(s, next);
    }
  }
  // Nothing is in flight here but bulk stores whose reads completed: tickets past the last tile
  // start no copies.
#endif
}

// ---- launch ------------------------------------------------------------------------------------

// Per kernel instantiation and device (up to 64): whether the shared-memory attributes are set,
// and how many blocks fit on the device at once.
struct BulkKernelSetup {
  std::atomic<int> resident[64] = {};  // 0: not set up yet
};

// Once per device: lets a bulk kernel use `bytes` of dynamic shared memory (beyond 48 KiB needs
// opting in) and asks for the largest shared-memory carveout (the tiles live there; L1 serves
// almost nothing); returns the blocks of `threads` that fit on the device at once.
template <class Kernel>
int setup_bulk_kernel(Kernel kernel, int threads, std::size_t bytes, BulkKernelSetup& setup) {
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 64 && setup.resident[device].load() > 0) return setup.resident[device].load();
  if (bytes > 48 * 1024)
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  TESSERA_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  int sms = 0, per_sm = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TESSERA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, bytes));
  if (per_sm < 1) throw std::runtime_error("lookback scan: a block of a bulk kernel does not fit on a multiprocessor");
  const int blocks = per_sm * sms;
  if (device < 64) setup.resident[device].store(blocks);
  return blocks;
}

// Bulk copies (cp.async.bulk, mbarrier transaction counts) exist from sm_90 (Hopper) on; older
// GPUs run the same tile shape on the registers engine. Cached per device.
inline bool bulk_copies_supported() {
  static std::atomic<int> known[64];  // 0 unknown, 1 no, 2 yes
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 64 && known[device].load() != 0) return known[device].load() == 2;
  int major = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (device < 64) known[device].store(major >= 9 ? 2 : 1);
  return major >= 9;
}

template <class P, bool Exclusive, class In, class Out>
void launch_mode(const In* in, Out* out, std::int64_t n, TileOffset<Out> offset, LookbackWorkspace& ws,
                 stream_t stream, bool aligned) {
  constexpr bool bulk_engine = P::kEngine != TileLoader::registers;
  if constexpr (bulk_engine && std::is_same_v<In, Out>) {
    if (aligned && bulk_copies_supported()) {
      using Sh = TileShape<P, In>;
      const std::int64_t tiles = ceil_div(n, Sh::kTileItems);
      if (tiles > INT_MAX) throw std::length_error("lookback scan: too many tiles for one launch");
      ws.prepare(tiles, layout_of<Out, P::kLayout>(), stream);
      const auto state = make_state<Out, P::kLayout>(ws);
      const std::size_t tile_bytes = static_cast<std::size_t>(Sh::kTileItems) * sizeof(In);
      const std::size_t shared = tile_bytes * P::kStages + bulk::kAlignSlack;
      if constexpr (P::kEngine == TileLoader::bulk) {
        auto kernel = lookback_bulk_kernel<P, Exclusive, In, StateFor<Out, P::kLayout>>;
        static BulkKernelSetup setup;
        (void)setup_bulk_kernel(kernel, P::kThreads, shared, setup);
        kernel<<<static_cast<unsigned>(tiles), P::kThreads, shared, stream>>>(in, out, n, offset, state,
                                                                                  ws.counter(), ws.counter_base());
        TESSERA_CUDA_CHECK_LAUNCH();
        ws.consumed(P::kOrder == TileOrder::ticket ? tiles : 0);
      } else {
        auto kernel = lookback_bulk_persistent_kernel<P, Exclusive, In, StateFor<Out, P::kLayout>>;
        static BulkKernelSetup setup;
        const auto grid =
            static_cast<int>(std::min<std::int64_t>(tiles, setup_bulk_kernel(kernel, P::kThreads, shared, setup)));
        kernel<<<grid, P::kThreads, shared, stream>>>(in, out, n, tiles, offset, state, ws.counter(),
                                                      ws.counter_base());
        TESSERA_CUDA_CHECK_LAUNCH();
        ws.consumed(tiles + grid);
      }
      return;
    }
  }
  if constexpr (bulk_engine) {
    launch_mode<RegistersPolicyOf<P>, Exclusive>(in, out, n, offset, ws, stream, aligned);
  } else {
    using Sh = TileShape<P, In>;
    const std::int64_t tiles = ceil_div(n, Sh::kTileItems);
    if (tiles > INT_MAX) throw std::length_error("lookback scan: too many tiles for one launch");
    ws.prepare(tiles, layout_of<Out, P::kLayout>(), stream);
    const auto state = make_state<Out, P::kLayout>(ws);
    lookback_registers_kernel<P, Exclusive><<<static_cast<unsigned>(tiles), P::kThreads, 0, stream>>>(
        in, out, n, offset, state, ws.counter(), ws.counter_base(), aligned);
    TESSERA_CUDA_CHECK_LAUNCH();
    ws.consumed(P::kOrder == TileOrder::ticket ? tiles : 0);
  }
}

// out = offset + scan(in) with policy P, queued on `stream`.
template <class P, class In, class Out>
void launch_lookback_at(const In* in, Out* out, std::int64_t n, Mode mode, TileOffset<Out> offset,
                        LookbackWorkspace& ws, stream_t stream) {
  if (n <= 0) return;
  const bool aligned = aligned16(in) && aligned16(out);
  if (mode == Mode::exclusive)
    launch_mode<P, true>(in, out, n, offset, ws, stream, aligned);
  else
    launch_mode<P, false>(in, out, n, offset, ws, stream, aligned);
}

// The same with a plain offset (the signature the candidate table stores).
template <class P, class In, class Out>
void launch_lookback(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, LookbackWorkspace& ws,
                     stream_t stream) {
  launch_lookback_at<P>(in, out, n, mode, TileOffset<Out>(offset), ws, stream);
}

}  // namespace tessera::scan::gpu
