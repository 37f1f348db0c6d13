#pragma once
// What every kernel of the cuda backend (cuda_engine.cuh) shares: the block and tile sizes,
// the step counters, the View the kernels take by value, and the small device helpers of
// several kernel families. Headers of device code are included by .cu files only (nvcc); without
// relocatable device code a __device__ function must be defined in each translation unit that
// calls it, hence inline functions in headers, here and in the families' *.cuh.
//
// Layout on the device: CSR rows with int64 offsets and uint32 global neighbour ids (a
// graph with 2^32 or more vertices is refused); bitmaps of 32-bit words (byte-compatible
// with the cpu's 64-bit words); queues of uint32 local ids; pairs as uint2.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/cuda_check.hpp"
#include "solvers/bfs/backend.hpp"

namespace tessera::bfs::gpu {

namespace cg = cooperative_groups;
using ull = unsigned long long;

constexpr int kBlock = 256;
constexpr int kTileItems = 4;
constexpr std::int64_t kTile = kBlock * kTileItems;  // frontier edges per top-down tile
constexpr int kThreadScan = 32;                       // bottom-up neighbours per thread before a warp takes over
constexpr unsigned kFull = 0xFFFFFFFFu;

// How many blocks of kBlock threads of `kernel` an SM holds at once (its registers and shared
// memory decide). A grid-stride kernel's grid is that many per SM, one wave: blocks beyond it
// start only when blocks of the first wave have finished all their work.
template <class Kernel>
int resident_blocks_per_sm(Kernel kernel, std::size_t shared) {
  int blocks = 0;
  TESSERA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kBlock, shared));
  return blocks > 0 ? blocks : 1;
}

// Device counters of a step's internals (what it found goes to the level table).
struct Counters {
  ull next_size;   // next queue length
  ull long_size;   // bottom-up vertices handed to the warp kernel
  ull any;         // edge-parallel: something was reached
  ull reached;     // reached vertices (after a search)
  ull input_degree;
  ull changed;     // pointer jumping: ancestors that moved
  ull selected;    // bitmap_to_queue output count
  ull check_count[kChecks];
  ull check_first[kChecks];
};

// Everything a kernel needs, passed by value: pointers fixed for the kernels' lifetime.
// The two frontier queues are not here: they swap every top-down level, so the kernels that
// read or append to them take them as arguments, at launch, from the buffers of that moment
// (a cached copy went stale after a swap on a rank whose frontier was empty that level).
struct View {
  const std::int64_t* offsets;
  const std::uint32_t* columns;
  const std::int64_t* input_degree;
  const std::uint32_t* sources;  // edge-parallel only
  std::int64_t begin, nl, n, words64;
  int parts, me;  // ranks, this rank
  std::int64_t* parent;  // global-sized
  std::int32_t* level;   // global-sized
  std::uint32_t* visited;   // local words
  std::uint32_t* frontier;  // global words
  std::uint32_t* next;      // local words
  std::uint32_t* sent;      // global words
  std::uint32_t* long_list;
  uint2* const* dest_pairs;  // per rank r: where this rank's pairs for r go (its send region, or r's memory)
  ull* row;                    // this rank's row of the level table: found, edges, pairs per rank
  Counters* counters;
  // Device-driven searches only (else null): the loop's state, and the two queues that are the
  // frontier of even and odd levels (kernels pick them by the level in the state).
  struct LevelControl* control;
  struct LevelStamp* stamps;  // kStampedLevels entries: the levels' clock readings (level_profile.hpp)
  std::uint32_t* queues[2];
  // Delegated hubs (delegates.hpp), used by device-driven searches through peer memory; else
  // hub_words is null and hub_degree INT64_MAX. Hub k's bit is bit k - rank_first[r] of rank
  // r's words, which start at word rank_word[r] of the hub bitmap (in the peer window).
  std::int64_t hub_degree;
  const std::uint32_t* hub_ids;        // every hub's global id, ascending
  const std::int64_t* hub_rank_first;  // ranks + 1
  const std::int64_t* hub_rank_word;   // ranks + 1
  const std::int64_t* hub_offsets;     // this rank's part of hub k's row: hub_targets[hub_offsets[k], [k + 1])
  const std::uint32_t* hub_targets;    // local ids
  ull* hub_words;                      // the hub bitmap (global words: hub_rank_word[parts])
  std::uint32_t* hub_list;             // the frontier's hubs (indices), conclude_level's list
  // Per group of 32 of this rank's hubs (its 32-bit words of the hub bitmap): nonzero once the
  // search has reached all of them, so that no later level looks at them again.
  std::uint32_t* hub_settled;
};

// This rank's words of the (global) frontier bitmap: its first vertex is a multiple of 64.
__device__ __forceinline__ std::uint32_t* my_frontier_words(const View& d) { return d.frontier + d.begin / 32; }

__device__ __forceinline__ bool test_bit(const std::uint32_t* words, std::uint32_t i) {
  return (words[i >> 5] >> (i & 31)) & 1u;
}

// Appends `value` with one atomic per coalesced group of threads.
__device__ __forceinline__ void enqueue(std::uint32_t* queue, ull* size, std::uint32_t value) {
  cg::coalesced_group g = cg::coalesced_threads();
  ull base = 0;
  if (g.thread_rank() == 0) base = atomicAdd(size, static_cast<ull>(g.size()));
  base = g.shfl(base, 0);
  queue[base + g.thread_rank()] = value;
}

// Sums two per-thread counts over the block's warps into the counters (all threads call it).
__device__ __forceinline__ void add_counts(ull* a, ull va, ull* b, ull vb) {
  for (int o = 16; o > 0; o >>= 1) {
    va += __shfl_down_sync(kFull, va, o);
    vb += __shfl_down_sync(kFull, vb, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (va) atomicAdd(a, va);
    if (vb) atomicAdd(b, vb);
  }
}

// Claims owned vertex wl (local id) for parent `from`: one winner per vertex, which writes
// its parent and level and returns true (the caller appends it to the next queue).
__device__ __forceinline__ bool claim(const View& d, std::uint32_t wl, std::uint32_t from, int level, ull& found,
                                      ull& edges) {
  std::uint32_t* word = d.visited + (wl >> 5);
  const std::uint32_t bit = 1u << (wl & 31);
  if (*word & bit) return false;
  if (atomicOr(word, bit) & bit) return false;
  d.parent[d.begin + wl] = from;
  d.level[d.begin + wl] = level;
  ++found;
  edges += static_cast<ull>(d.offsets[wl + 1] - d.offsets[wl]);
  return true;
}

// Whether remote vertex w is to be sent now: true once per search for each w.
__device__ __forceinline__ bool first_send(const View& d, std::uint32_t w) {
  std::uint32_t* word = d.sent + (w >> 5);
  const std::uint32_t bit = 1u << (w & 31);
  if (*word & bit) return false;
  return !(atomicOr(word, bit) & bit);
}

// A block's appends to `slots` destinations (the next queue, the send regions), staged per
// tile: items take block-local indices with shared-memory atomics (one per group of a
// warp's lanes with the same destination), then the block takes its ranges of the global
// counters with one atomic per destination and tile. The per-warp global atomics this
// replaces all hit one counter (the next queue's; with two ranks, also the one send
// region's), and a top-down level that claims millions of vertices serialised on them.
// Shared memory: 2 * slots ull (dynamic). Every thread of the block calls every member, in
// the same order: reserve() for each item (kNone: no item), commit(), then the writes.
struct TileAppend;
// The dynamic shared memory of a kernel with a TileAppend over `slots` destinations.
constexpr std::size_t append_shared_bytes(int slots) { return 2 * sizeof(ull) * static_cast<std::size_t>(slots); }

struct TileAppend {
  static constexpr int kNone = -1;
  ull* count;  // block-local items per destination in this tile
  ull* base;   // the block's first global index per destination, after commit()
  int slots;

  __device__ explicit TileAppend(int slots_) : slots(slots_) {
    extern __shared__ ull tile_append_shared[];
    count = tile_append_shared;
    base = tile_append_shared + slots_;
    for (int t = threadIdx.x; t < slots_; t += blockDim.x) count[t] = 0;
    __syncthreads();
  }

  // The item's index among this tile's items for `dest` (every lane of the warp calls it).
  __device__ __forceinline__ ull reserve(int dest) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned peers = __match_any_sync(kFull, dest);
    const int leader = __ffs(peers) - 1;
    ull first = 0;
    if (dest != kNone && static_cast<int>(lane) == leader) first = atomicAdd(&count[dest], static_cast<ull>(__popc(peers)));
    first = __shfl_sync(kFull, first, leader);
    return first + static_cast<ull>(__popc(peers & ((1u << lane) - 1u)));
  }

  // The block's ranges: counter(t) is destination t's global counter.
  template <class Counter>
  __device__ __forceinline__ void commit(Counter counter) {
    __syncthreads();
    for (int t = threadIdx.x; t < slots; t += blockDim.x) {
      base[t] = count[t] ? atomicAdd(counter(t), count[t]) : 0;
      count[t] = 0;
    }
    __syncthreads();
  }
};

// Largest i in [lo, hi] with scan[i] <= x (scan nondecreasing, scan[lo] <= x).
__device__ __forceinline__ std::int64_t last_at_most(const std::int64_t* scan, std::int64_t lo, std::int64_t hi,
                                                      std::int64_t x) {
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) >> 1;
    if (scan[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The same search done by a whole block (every thread calls it and gets the answer): each
// round probes kBlock evenly spaced positions at once and keeps the gap holding the answer,
// so a frontier of a million vertices takes three rounds of parallel loads instead of twenty
// dependent ones by a single thread while the block waits.
__device__ __forceinline__ std::int64_t block_last_at_most(const std::int64_t* scan, std::int64_t lo,
                                                            std::int64_t hi, std::int64_t x) {
  const std::int64_t t = threadIdx.x;
  while (hi - lo > kBlock) {  // uniform over the block
    const std::int64_t span = hi - lo;
    const int below = __syncthreads_count(scan[lo + ((t + 1) * span) / kBlock] <= x);  // a prefix of the probes
    const std::int64_t next_lo = below > 0 ? lo + (below * span) / kBlock : lo;
    hi = below < kBlock ? lo + ((below + 1) * span) / kBlock - 1 : hi;
    lo = next_lo;
  }
  const std::int64_t p = lo + 1 + t;
  return lo + __syncthreads_count(p <= hi && scan[p] <= x);
}

// Zeroes this rank's row of the level table (its first row_words words) and, when asked, the
// step counters (the threads of one block).
__device__ __forceinline__ void clear_row_and_counters(const View& d, int row_words, bool counters = true) {
  for (int i = threadIdx.x; i < row_words; i += blockDim.x) d.row[i] = 0;
  if (!counters) return;
  ull* c = reinterpret_cast<ull*>(d.counters);
  for (int i = threadIdx.x; i < static_cast<int>(sizeof(Counters) / sizeof(ull)); i += blockDim.x) c[i] = 0;
}

// The root (local id) is reached at level 0, its own parent, and is the queue's one vertex.
__device__ __forceinline__ void mark_root_at(const View& d, std::uint32_t local, std::uint32_t* queue) {
  d.visited[local >> 5] |= 1u << (local & 31);
  d.parent[d.begin + local] = d.begin + local;
  d.level[d.begin + local] = 0;
  queue[0] = local;
}

}  // namespace tessera::bfs::gpu
