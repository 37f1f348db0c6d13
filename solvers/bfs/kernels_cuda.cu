// The cuda backend of the search and validation building blocks (kernels.hpp).
//
// Layout on the device: CSR rows with int64 offsets and uint32 global neighbour ids (a
// graph with 2^32 or more vertices is refused); bitmaps of 32-bit words (byte-compatible
// with the cpu's 64-bit words); queues of uint32 local ids; pairs as uint2.
//
// Top-down is load-balanced over edges, not vertices (Kronecker degrees span six orders of
// magnitude): the frontier's degrees are prefix-summed with CUB, each block takes a tile of
// kTile consecutive frontier edges and each thread finds its edge's vertex by a binary
// search within the tile's short range of the scan. A neighbour is claimed with one atomicOr
// on the visited bitmap (a plain read first skips most of them); winners, and vertices sent
// to other ranks, are appended a tile at a time (TileAppend: shared-memory slots, then one
// global atomic per destination and tile). A frontier of up to kSmallFrontier vertices is
// scanned by one block (small_frontier_scan) instead of CUB's device scan.
//
// Bottom-up gives each unvisited vertex one thread that checks its first kThreadScan
// neighbours against the frontier bitmap (2 MiB at scale 24: it lives in L2) and stops at the
// first hit; each warp covers one 32-bit word of vertices, so a ballot writes the visited and
// next words without atomics. The few vertices with longer rows still unresolved go to a
// list that a second kernel scans a warp per vertex, 32 neighbours per step.
//
// Delegated hubs (delegates.hpp), in device-driven searches through peer memory: a top-down
// level's items are its queue (hubs counted with no edges) then the frontier's hubs, each
// with this rank's part of its row; the level's last share passes which of the rank's hubs
// the level reached, and conclude_level lists them for the next level.
//
// The level steps only queue work: what they found goes to this rank's row of the level
// table (device memory), which the search allgathers on the transport and copies to the
// host once per exchange (kernels.hpp).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cub/cub.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <stdexcept>
#include <vector>

#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "comm/errors.hpp"
#include "comm/peer_sync.cuh"
#include "comm/peer_window.hpp"
#include "core/stream.hpp"
#include "solvers/bfs/delegates.hpp"
#include "solvers/bfs/kernels.hpp"
#include "solvers/bfs/validate_rules.hpp"

namespace tessera::bfs {
namespace {

namespace cg = cooperative_groups;
using ull = unsigned long long;

constexpr int kBlock = 256;
constexpr int kTileItems = 4;
constexpr std::int64_t kTile = kBlock * kTileItems;  // frontier edges per top-down tile
constexpr int kThreadScan = 32;                       // bottom-up neighbours per thread before a warp takes over
constexpr unsigned kFull = 0xFFFFFFFFu;

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

// Queues (w, from) for w's owner, once per search for each remote w. The threads of a warp
// sending to the same rank take their slots with one atomic (with two ranks, every remote
// vertex goes to the same counter).
__device__ __forceinline__ void send_remote(const View& d, std::uint32_t w, std::uint32_t from) {
  std::uint32_t* word = d.sent + (w >> 5);
  const std::uint32_t bit = 1u << (w & 31);
  if (*word & bit) return;
  if (atomicOr(word, bit) & bit) return;
  const int r = block_owner(d.words64, d.parts, static_cast<std::int64_t>(w >> 6));
  const cg::coalesced_group same = cg::labeled_partition(cg::coalesced_threads(), r);
  ull base = 0;
  if (same.thread_rank() == 0) base = atomicAdd(&d.row[kRowPairs + r], static_cast<ull>(same.size()));
  base = same.shfl(base, 0);
  d.dest_pairs[r][base + same.thread_rank()] = make_uint2(w, from);
}

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

// ---- top-down --------------------------------------------------------------------------

__global__ void frontier_degrees(View d, const std::uint32_t* queue, std::int64_t nq, std::int64_t* degrees) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i <= nq;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    degrees[i] = i < nq ? d.offsets[queue[i] + 1] - d.offsets[queue[i]] : 0;
  }
}

// A small frontier's degrees and their exclusive scan (scan[nq] = the total) in one block,
// which also clears the step's row and counters (clear_step): one launch where the general
// path takes four (clear, degrees, CUB's two), most levels of a search being small.
constexpr int kSmallScanThreads = 512;
constexpr int kSmallScanItems = 4;
constexpr std::int64_t kSmallFrontier = kSmallScanThreads * kSmallScanItems;

// One block's exclusive scan of degree_at(q) for q in [first, last) into scan[q], starting
// from `carry`, in tiles of kSmallFrontier; returns carry + their sum (to every thread).
template <class DegreeAt>
__device__ __forceinline__ std::int64_t block_scan_range(std::int64_t first, std::int64_t last, std::int64_t carry,
                                                         DegreeAt degree_at, std::int64_t* scan) {
  using Scan = cub::BlockScan<std::int64_t, kSmallScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  for (std::int64_t tile = first; tile < last; tile += kSmallFrontier) {  // uniform over the block
    std::int64_t degree[kSmallScanItems];
#pragma unroll
    for (int i = 0; i < kSmallScanItems; ++i) {  // blocked: thread t holds items t * kSmallScanItems + i
      const std::int64_t q = tile + static_cast<std::int64_t>(threadIdx.x) * kSmallScanItems + i;
      degree[i] = q < last ? degree_at(q) : 0;
    }
    std::int64_t total = 0;
    Scan(temp).ExclusiveSum(degree, degree, total);
#pragma unroll
    for (int i = 0; i < kSmallScanItems; ++i) {
      const std::int64_t q = tile + static_cast<std::int64_t>(threadIdx.x) * kSmallScanItems + i;
      if (q < last) scan[q] = carry + degree[i];
    }
    carry += total;
    __syncthreads();  // temp is reused by the next tile
  }
  return carry;
}

// Zeroes this rank's row of the level table (its first row_words words) and, when asked, the
// step counters (the threads of one block).
__device__ __forceinline__ void clear_row_and_counters(const View& d, int row_words, bool counters = true) {
  for (int i = threadIdx.x; i < row_words; i += blockDim.x) d.row[i] = 0;
  if (!counters) return;
  ull* c = reinterpret_cast<ull*>(d.counters);
  for (int i = threadIdx.x; i < static_cast<int>(sizeof(Counters) / sizeof(ull)); i += blockDim.x) c[i] = 0;
}

__device__ __forceinline__ std::int64_t queued_degree(const View& d, const std::uint32_t* queue, std::int64_t q) {
  return d.offsets[queue[q] + 1] - d.offsets[queue[q]];
}

__global__ void __launch_bounds__(kSmallScanThreads) small_frontier_scan(View d, const std::uint32_t* queue,
                                                                       std::int64_t nq, std::int64_t* scan,
                                                                       int row_words) {
  const std::int64_t total =
      block_scan_range(0, nq, 0, [&](std::int64_t q) { return queued_degree(d, queue, q); }, scan);
  if (threadIdx.x == 0) scan[nq] = total;
  clear_row_and_counters(d, row_words);
}

// Every block takes tiles of kTile frontier edges, kTileItems per thread. Destination of an
// edge's discovery: d.me for a claimed owned vertex (the next queue), r for a vertex sent to
// rank r (its send region). The items whose edges are scanned: the queue's nq vertices, then
// nh delegated hubs of the frontier (d.hub_list), whose edges here all lead to owned vertices.
template <bool kDistributed>
__device__ __forceinline__ void top_down_tiles(const View& d, const std::uint32_t* queue, const std::int64_t* scan,
                                               std::int64_t nq, std::int64_t nh, std::uint32_t* next_queue,
                                               int next_level) {
  const std::int64_t items = nq + nh;
  const std::int64_t total = scan[items];
  TileAppend out(d.parts);
  ull found = 0, edges = 0;
  for (std::int64_t tile = blockIdx.x; tile * kTile < total; tile += gridDim.x) {  // uniform over the block
    const std::int64_t e0 = tile * kTile, e1 = min(e0 + kTile, total);
    // The items whose edges the tile covers: [lo, hi].
    std::int64_t lo = block_last_at_most(scan, 0, items - 1, e0);
    const std::int64_t hi = block_last_at_most(scan, lo, items - 1, e1 - 1);
    std::uint32_t item_w[kTileItems], item_from[kTileItems];
    int item_dest[kTileItems];
    ull item_slot[kTileItems];
#pragma unroll
    for (int i = 0; i < kTileItems; ++i) {
      const std::int64_t e = e0 + threadIdx.x + static_cast<std::int64_t>(i) * kBlock;
      item_dest[i] = TileAppend::kNone;
      item_w[i] = 0;
      item_from[i] = 0;
      if (e < e1) {
        lo = last_at_most(scan, lo, hi, e);
        std::uint32_t w, from;
        if (lo < nq) {
          const std::uint32_t u = queue[lo];
          w = d.columns[d.offsets[u] + (e - scan[lo])];
          from = static_cast<std::uint32_t>(d.begin + u);
        } else {  // a delegated hub's edge to an owned vertex
          const std::uint32_t k = d.hub_list[lo - nq];
          w = static_cast<std::uint32_t>(d.begin + d.hub_targets[d.hub_offsets[k] + (e - scan[lo])]);
          from = d.hub_ids[k];
        }
        item_w[i] = w;
        item_from[i] = from;
        if (!kDistributed || (w >= d.begin && w < d.begin + d.nl)) {
          if (claim(d, static_cast<std::uint32_t>(w - d.begin), from, next_level, found, edges)) item_dest[i] = d.me;
        } else if (first_send(d, w)) {
          item_dest[i] = block_owner(d.words64, d.parts, static_cast<std::int64_t>(w >> 6));
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kTileItems; ++i) item_slot[i] = out.reserve(item_dest[i]);
    out.commit([&](int t) { return t == d.me ? &d.counters->next_size : &d.row[kRowPairs + t]; });
#pragma unroll
    for (int i = 0; i < kTileItems; ++i) {
      const int r = item_dest[i];
      if (r == d.me)
        next_queue[out.base[r] + item_slot[i]] = static_cast<std::uint32_t>(item_w[i] - d.begin);
      else if (r != TileAppend::kNone)
        d.dest_pairs[r][out.base[r] + item_slot[i]] = make_uint2(item_w[i], item_from[i]);
    }
  }
  add_counts(&d.row[kRowFound], found, &d.row[kRowEdges], edges);
}

template <bool kDistributed>
__global__ void __launch_bounds__(kBlock) top_down_kernel(View d, const std::uint32_t* queue, const std::int64_t* scan,
                                                          std::int64_t nq, std::uint32_t* next_queue, int next_level) {
  top_down_tiles<kDistributed>(d, queue, scan, nq, 0, next_queue, next_level);
}

// Claims received pairs (vertex, parent): pair_at(i) for i in [0, count) or kNone where slot
// i holds no pair. Tiles of kBlock pairs, appended to the next queue a block at a time.
template <class PairAt>
__device__ __forceinline__ void claim_pairs(const View& d, std::int64_t count, PairAt pair_at,
                                            std::uint32_t* next_queue, int next_level) {
  TileAppend out(1);
  ull found = 0, edges = 0;
  for (std::int64_t first = blockIdx.x * static_cast<std::int64_t>(kBlock); first < count;
       first += static_cast<std::int64_t>(gridDim.x) * kBlock) {  // uniform over the block
    const std::int64_t i = first + threadIdx.x;
    int dest = TileAppend::kNone;
    std::uint32_t wl = 0;
    if (i < count) {
      uint2 p;
      if (pair_at(i, p)) {
        wl = static_cast<std::uint32_t>(p.x - d.begin);
        if (claim(d, wl, p.y, next_level, found, edges)) dest = 0;
      }
    }
    const ull slot = out.reserve(dest);
    out.commit([&](int) { return &d.counters->next_size; });
    if (dest == 0) next_queue[out.base[0] + slot] = wl;
  }
  add_counts(&d.row[kRowFound], found, &d.row[kRowEdges], edges);
}

__global__ void __launch_bounds__(kBlock) apply_received_kernel(View d, const uint2* pairs, std::int64_t count,
                                                         std::uint32_t* next_queue, int next_level) {
  claim_pairs(
      d, count,
      [&](std::int64_t i, uint2& p) {
        p = pairs[i];
        return true;
      },
      next_queue, next_level);
}

// The eager pairs: slot k * cap + i holds pair i from the k-th other rank, which wrote its
// count for this rank in its row of the (allgathered) level table.
__global__ void __launch_bounds__(kBlock) apply_eager_kernel(View d, const uint2* pairs, const ull* table,
                                                      std::int64_t cap, int me, int row_words,
                                                      std::uint32_t* next_queue, int next_level) {
  claim_pairs(
      d, static_cast<std::int64_t>(d.parts - 1) * cap,
      [&](std::int64_t s, uint2& p) {
        const auto k = static_cast<int>(s / cap);
        const int r = k < me ? k : k + 1;
        if (s - k * cap >= static_cast<std::int64_t>(table[static_cast<std::int64_t>(r) * row_words + kRowPairs + me]))
          return false;
        p = pairs[s];
        return true;
      },
      next_queue, next_level);
}

// ---- device-initiated exchanges (peer memory) -------------------------------------------

// Where the shares put things in every rank's window (the same layout on every rank).
struct SharedLayout {
  std::size_t table[2];   // two tables of `ranks` rows and a status word; shares alternate
  std::size_t frontier;   // the frontier bitmap (global words)
  std::size_t hubs;       // the hub bitmap (delegates.hpp; global words)
  std::size_t receive;    // pairs: slot k (the k-th other rank) at k * slot_pairs
  std::int64_t slot_pairs;
};

// A device-driven level's readings of the GPU's global clock (ns), for the profile: taken by the
// kernels that pass the points, so the search runs as it does unprofiled. A share is read when
// its first block starts (the steps before it have finished), once it has signalled (its
// stores have landed) and after the wait for the other ranks.
constexpr int kStampedLevels = 64;  // deeper levels are not stamped
struct LevelStamp {
  ull start, share_in[2], share_signalled[2], share_out[2], conclude_in, end;
  long long vertices, edges;
  int bottom_up;
};

// Where a share kernel stamps its readings: levels[*level].share_*[which] (stamps null: nowhere).
struct ShareStamps {
  LevelStamp* stamps = nullptr;
  const long long* level = nullptr;  // LevelControl::level
  int which = 0;                     // the level's first share (0) or its last (1)

  __device__ __forceinline__ LevelStamp* at() const {
    return stamps && *level < kStampedLevels ? stamps + *level : nullptr;
  }
};

// Which of this rank's hubs the level reached (share_kernel writes them as its words of the hub
// bitmap): visited in this search and at level `*level_now + 1` (the level arrays keep the
// last search's entries until the end of this one, so the level alone would not do).
struct HubShare {
  std::size_t offset = 0;            // the hub bitmap in the window
  std::int64_t word_begin = 0;       // this rank's first word
  std::int64_t count = 0;            // this rank's hubs (0: no hub words to share)
  const std::uint32_t* ids = nullptr;  // their global ids
  std::int64_t begin = 0;            // this rank's first vertex
  const std::uint32_t* visited = nullptr;
  const std::int32_t* level = nullptr;  // global-sized
  const long long* level_now = nullptr;  // LevelControl::level: the level being shared
};

// This rank's row into every rank's copy of table `t` (its own included); with frontier words
// [word_begin, word_begin + word_count) (64-bit), those into every other rank's bitmap first,
// and with hubs, its words of the hub bitmap into every rank's (a warp's ballot per 32 hubs).
// The last block then signals and waits for every rank's share (peer_sync.cuh) and writes the
// wait's status after the table, where the host copy finds it. The pairs that top_down stored
// into other ranks' memory need no fence of their own: that kernel happens before this one in
// stream order, and the signal's release covers what happened before it.
// The sequence numbers count the shares on the device (`shares`), so that a share queued in a
// graph, or skipped by a device-driven search that has ended (on every rank alike), keeps the
// ranks' numbers equal without the host.
__global__ void __launch_bounds__(kBlock) share_kernel(comm::PeerView pv, const ull* row, int row_words,
                                                       std::size_t table, std::size_t frontier,
                                                       std::int64_t word_begin, std::int64_t word_count,
                                                       HubShare hubs, ull* shares, ShareStamps stamps) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    if (LevelStamp* s = stamps.at()) s->share_in[stamps.which] = comm::peer::global_nanoseconds();
  if (blockIdx.x == 0)
    for (int r = 0; r < pv.ranks; ++r) {
      ull* to = reinterpret_cast<ull*>(pv.base[r] + table) + static_cast<std::int64_t>(pv.me) * row_words;
      for (int i = threadIdx.x; i < row_words; i += blockDim.x) to[i] = row[i];
    }
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const ull* mine = reinterpret_cast<const ull*>(pv.base[pv.me] + frontier) + word_begin;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < word_count; i += stride) {
    const ull w = mine[i];
    for (int r = 0; r < pv.ranks; ++r)
      if (r != pv.me) reinterpret_cast<ull*>(pv.base[r] + frontier)[word_begin + i] = w;
  }
  if (hubs.count > 0) {
    const long long next = *hubs.level_now + 1;
    const std::int64_t lanes = (hubs.count + 31) / 32 * 32;  // whole warps
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < lanes; i += stride) {
      bool reached = false;
      if (i < hubs.count) {
        const std::uint32_t v = hubs.ids[i] - static_cast<std::uint32_t>(hubs.begin);
        reached = test_bit(hubs.visited, v) && hubs.level[hubs.begin + v] == next;
      }
      const std::uint32_t bits = __ballot_sync(kFull, reached);
      if ((threadIdx.x & 31) == 0)
        for (int r = 0; r < pv.ranks; ++r)  // 32-bit halves of the 64-bit words (little-endian)
          reinterpret_cast<std::uint32_t*>(pv.base[r] + hubs.offset)[hubs.word_begin * 2 + i / 32] = bits;
    }
  }
  if (comm::peer::last_block_done(pv)) {
    LevelStamp* stamp = stamps.at();
    const ull sequence = ++*shares;
    comm::peer::signal(pv, sequence);
    if (stamp) stamp->share_signalled[stamps.which] = comm::peer::global_nanoseconds();
    comm::peer::wait(pv, sequence);
    reinterpret_cast<ull*>(pv.base[pv.me] + table)[static_cast<std::int64_t>(pv.ranks) * row_words] = *pv.status;
    if (stamp) stamp->share_out[stamps.which] = comm::peer::global_nanoseconds();
  }
}

// The pairs the other ranks' top_down wrote here: slot k (the k-th other rank, in rank order)
// holds that rank's count for this one in its row of the shared table.
__device__ __forceinline__ void claim_shared(const View& d, const uint2* pairs, std::int64_t slot_pairs,
                                             const ull* table, int row_words, std::uint32_t* next_queue,
                                             int next_level) {
  const auto count_from = [&](int k) {
    const int r = k < d.me ? k : k + 1;
    return static_cast<std::int64_t>(table[static_cast<std::int64_t>(r) * row_words + kRowPairs + d.me]);
  };
  std::int64_t total = 0;
  for (int k = 0; k + 1 < d.parts; ++k) total += count_from(k);
  claim_pairs(
      d, total,
      [&](std::int64_t i, uint2& p) {
        int k = 0;
        for (std::int64_t c = count_from(0); i >= c; c = count_from(++k)) i -= c;
        p = pairs[k * slot_pairs + i];
        return true;
      },
      next_queue, next_level);
}

__global__ void __launch_bounds__(kBlock) apply_shared_kernel(View d, const uint2* pairs, std::int64_t slot_pairs,
                                                              const ull* table, int row_words,
                                                              std::uint32_t* next_queue, int next_level) {
  claim_shared(d, pairs, slot_pairs, table, row_words, next_queue, next_level);
}

// Stores `pairs` zero pairs at the start of every other rank's receive area (slots a level
// overwrites before any rank reads them): traffic on every NVLink link before a search
// (SearchKernels::wake_peer_links).
__global__ void wake_links_kernel(View d, std::int64_t pairs) {
  for (int r = 0; r < d.parts; ++r) {
    if (r == d.me) continue;
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < pairs;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
      d.dest_pairs[r][i] = make_uint2(0u, 0u);
  }
}

// ---- bottom-up -------------------------------------------------------------------------

__device__ __forceinline__ void set_queued_bits(const std::uint32_t* queue, std::int64_t nq, std::uint32_t* words) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < nq;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    atomicOr(words + (queue[i] >> 5), 1u << (queue[i] & 31));
}

__global__ void queue_to_bitmap_kernel(const std::uint32_t* queue, std::int64_t nq, std::uint32_t* words) {
  set_queued_bits(queue, nq, words);
}

__device__ __forceinline__ void bottom_up_words(const View& d, int next_level) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kBlock / 32);
  const std::int64_t words = (d.nl + 31) / 32;
  ull found = 0, edges = 0;
  for (std::int64_t wi = (blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x) >> 5; wi < words;
       wi += warps) {
    const std::uint32_t seen = d.visited[wi];
    std::uint32_t hits = 0;
    if (seen != kFull) {  // uniform over the warp
      const std::int64_t v = wi * 32 + lane;
      bool hit = false;
      if (v < d.nl && !((seen >> lane) & 1u)) {
        const std::int64_t s = d.offsets[v], e = d.offsets[v + 1];
        const std::int64_t stop = min(e, s + kThreadScan);
        for (std::int64_t j = s; j < stop; ++j) {
          const std::uint32_t w = d.columns[j];
          if (test_bit(d.frontier, w)) {
            d.parent[d.begin + v] = w;
            d.level[d.begin + v] = next_level;
            hit = true;
            ++found;
            edges += static_cast<ull>(e - s);
            break;
          }
        }
        if (!hit && stop < e) enqueue(d.long_list, &d.counters->long_size, static_cast<std::uint32_t>(v));
      }
      hits = __ballot_sync(kFull, hit);
    }
    if (lane == 0) {
      if (hits) d.visited[wi] = seen | hits;
      d.next[wi] = hits;
    }
  }
  add_counts(&d.row[kRowFound], found, &d.row[kRowEdges], edges);
}

__global__ void __launch_bounds__(kBlock) bottom_up_kernel(View d, int next_level) { bottom_up_words(d, next_level); }

// The rows the thread pass left unresolved, a warp per vertex.
__device__ __forceinline__ void bottom_up_long_rows(const View& d, int next_level) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kBlock / 32);
  const auto count = static_cast<std::int64_t>(d.counters->long_size);
  ull found = 0, edges = 0;
  for (std::int64_t i = (blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x) >> 5; i < count; i += warps) {
    const std::uint32_t v = d.long_list[i];
    const std::int64_t s = d.offsets[v], e = d.offsets[v + 1];
    for (std::int64_t base = s + kThreadScan; base < e; base += 32) {
      const std::int64_t j = base + lane;
      const std::uint32_t w = j < e ? d.columns[j] : 0;
      const std::uint32_t m = __ballot_sync(kFull, j < e && test_bit(d.frontier, w));
      if (m) {
        const std::uint32_t parent = __shfl_sync(kFull, w, __ffs(m) - 1);
        if (lane == 0) {
          d.parent[d.begin + v] = parent;
          d.level[d.begin + v] = next_level;
          atomicOr(d.visited + (v >> 5), 1u << (v & 31));
          atomicOr(d.next + (v >> 5), 1u << (v & 31));
          ++found;
          edges += static_cast<ull>(e - s);
        }
        break;
      }
    }
  }
  add_counts(&d.row[kRowFound], found, &d.row[kRowEdges], edges);
}

__global__ void __launch_bounds__(kBlock) bottom_up_long_kernel(View d, int next_level) {
  bottom_up_long_rows(d, next_level);
}

// This rank's frontier words as a queue of local ids, a word per thread and kBitmapWords words
// per thread and round: a block scan of the words' bit counts places each word's vertices,
// and one atomic per block and round takes the block's range of the queue (reading the words
// is the whole cost: 4 MiB at scale 26 on one rank, against a compaction over every vertex id).
// The queue holds the vertices of a word in order, the words of a block in order, blocks in
// the order they finish.
constexpr int kBitmapWords = 4;

__device__ __forceinline__ void bitmap_to_queue_rounds(const std::uint32_t* words, std::int64_t nwords,
                                                       std::int64_t nl, std::uint32_t* queue, ull* size) {
  using Scan = cub::BlockScan<unsigned, kBlock>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ ull block_base;
  constexpr std::int64_t kRound = static_cast<std::int64_t>(kBlock) * kBitmapWords;
  for (std::int64_t first = blockIdx.x * kRound; first < nwords; first += gridDim.x * kRound) {  // uniform
    std::uint32_t w[kBitmapWords];
    unsigned count = 0;
#pragma unroll
    for (int k = 0; k < kBitmapWords; ++k) {
      const std::int64_t i = first + static_cast<std::int64_t>(threadIdx.x) * kBitmapWords + k;
      w[k] = i < nwords ? words[i] : 0u;
      count += __popc(w[k]);
    }
    unsigned offset = 0, total = 0;
    Scan(temp).ExclusiveSum(count, offset, total);
    if (threadIdx.x == 0) block_base = total ? atomicAdd(size, static_cast<ull>(total)) : 0;
    __syncthreads();
    ull at = block_base + offset;
#pragma unroll
    for (int k = 0; k < kBitmapWords; ++k) {
      const std::int64_t v0 = (first + static_cast<std::int64_t>(threadIdx.x) * kBitmapWords + k) * 32;
      for (std::uint32_t bits = w[k]; bits; bits &= bits - 1) {
        const std::int64_t v = v0 + __ffs(bits) - 1;
        if (v < nl) queue[at++] = static_cast<std::uint32_t>(v);
      }
    }
    __syncthreads();  // temp and block_base are reused by the next round
  }
}

__global__ void __launch_bounds__(kBlock) bitmap_to_queue_kernel(const std::uint32_t* words, std::int64_t nwords,
                                                                 std::int64_t nl, std::uint32_t* queue, ull* size) {
  bitmap_to_queue_rounds(words, nwords, nl, queue, size);
}

// ---- the seed's edge-parallel step -----------------------------------------------------

__global__ void row_sources(View d, std::uint32_t* sources) {
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < d.nl;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    for (std::int64_t j = d.offsets[v]; j < d.offsets[v + 1]; ++j) sources[j] = static_cast<std::uint32_t>(v);
}

__global__ void edge_parallel_kernel(View d, std::int64_t entries, int level) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < entries;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t u = d.sources[j];
    if (d.level[d.begin + u] != level) continue;
    const std::uint32_t w = d.columns[j];
    if (w >= d.begin && w < d.begin + d.nl) {
      if (d.level[w] == -1) {  // benign race: every writer stores level + 1 and a valid parent
        d.level[w] = level + 1;
        d.parent[w] = d.begin + u;
        d.counters->any = 1;
      }
    } else {
      send_remote(d, w, static_cast<std::uint32_t>(d.begin + u));
    }
  }
}

__global__ void apply_received_plain_kernel(View d, const uint2* pairs, std::int64_t count, int level) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const uint2 p = pairs[i];
    if (d.level[p.x] == -1) {
      d.level[p.x] = level + 1;
      d.parent[p.x] = p.y;
      d.counters->any = 1;
    }
  }
}

// ---- bookkeeping -----------------------------------------------------------------------

// Zeroes this rank's row of the level table (all of it, or found and edges only) and, when
// asked, the step counters: one launch instead of two memsets.
__global__ void clear_step(View d, int row_words, bool counters) { clear_row_and_counters(d, row_words, counters); }

// After a search: -1 for the vertices the last search reached and this one did not (the
// windows hold -1 elsewhere); this search's visited bitmap becomes the last one.
__global__ void __launch_bounds__(kBlock) clear_stale_entries(View d, std::uint32_t* reached_before) {
  const std::int64_t words = (d.nl + 31) / 32;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t now = d.visited[i];
    for (std::uint32_t stale = reached_before[i] & ~now; stale; stale &= stale - 1) {
      const std::int64_t v = d.begin + i * 32 + __ffs(stale) - 1;
      d.parent[v] = -1;
      d.level[v] = -1;
    }
    reached_before[i] = now;
  }
}

// The root (local id) is reached at level 0, its own parent, and is the queue's one vertex.
__device__ __forceinline__ void mark_root_at(const View& d, std::uint32_t local, std::uint32_t* queue) {
  d.visited[local >> 5] |= 1u << (local & 31);
  d.parent[d.begin + local] = d.begin + local;
  d.level[d.begin + local] = 0;
  queue[0] = local;
}

__global__ void mark_root(View d, std::uint32_t local, std::uint32_t* queue) { mark_root_at(d, local, queue); }

__global__ void __launch_bounds__(kBlock) count_reached(View d) {
  ull count = 0, degree = 0;
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x; v < d.nl;
       v += static_cast<std::int64_t>(gridDim.x) * kBlock)
    if (d.parent[d.begin + v] != -1) {
      ++count;
      degree += static_cast<ull>(d.input_degree[v]);
    }
  add_counts(&d.counters->reached, count, &d.counters->input_degree, degree);
}

// ---- validation ------------------------------------------------------------------------

__global__ void first_ancestors(const std::int64_t* parent, std::int64_t n, std::int64_t root, std::int64_t* anc) {
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < n;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    anc[v] = first_ancestor(parent, n, v, root);
}

__global__ void __launch_bounds__(kBlock) jump(const std::int64_t* anc, std::int64_t n, std::int64_t* next,
                                               Counters* c) {
  ull changed = 0;
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x; v < n;
       v += static_cast<std::int64_t>(gridDim.x) * kBlock) {
    const std::int64_t a = anc[v];
    const std::int64_t b = a >= 0 ? anc[a] : a;
    next[v] = b;
    changed += b != a ? 1 : 0;
  }
  add_counts(&c->changed, changed, &c->changed, 0);
}

__device__ __forceinline__ void flag(Counters* c, int check, ull amount, std::int64_t g) {
  atomicAdd(&c->check_count[check], amount);
  atomicMin(&c->check_first[check], static_cast<ull>(g));
}

// Checks 1, 2 and 5, a thread per owned vertex.
__global__ void check_vertices(View d, std::int64_t root, const std::int64_t* anc) {
  const TreeView t{d.parent, d.level, d.n};
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < d.nl;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t g = d.begin + v;
    if (tree_violation(t, g, root, anc[g])) flag(d.counters, kTree, 1, g);
    if (level_violation(t, g, root)) flag(d.counters, kLevels, 1, g);
    if (needs_parent_edge(t, g, root)) {
      const auto p = static_cast<std::uint32_t>(d.parent[g]);
      std::int64_t lo = d.offsets[v], hi = d.offsets[v + 1];
      while (lo < hi) {
        const std::int64_t mid = (lo + hi) >> 1;
        if (d.columns[mid] < p) lo = mid + 1;
        else hi = mid;
      }
      if (lo == d.offsets[v + 1] || d.columns[lo] != p) flag(d.counters, kParentEdges, 1, g);
    }
  }
}

// Checks 3 and 4, a warp per owned vertex (rows are long and uneven).
__global__ void __launch_bounds__(kBlock) check_edges(View d) {
  const TreeView t{d.parent, d.level, d.n};
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kBlock / 32);
  for (std::int64_t v = (blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x) >> 5; v < d.nl; v += warps) {
    const std::int64_t g = d.begin + v;
    ull bad_levels = 0, bad_span = 0;
    for (std::int64_t j = d.offsets[v] + lane; j < d.offsets[v + 1]; j += 32) {
      const std::int64_t w = d.columns[j];
      bad_levels += edge_level_violation(t, g, w) ? 1 : 0;
      bad_span += spanning_violation(t, g, w) ? 1 : 0;
    }
    for (int o = 16; o > 0; o >>= 1) {
      bad_levels += __shfl_down_sync(kFull, bad_levels, o);
      bad_span += __shfl_down_sync(kFull, bad_span, o);
    }
    if (lane == 0) {
      if (bad_levels) flag(d.counters, kEdgeLevels, bad_levels, g);
      if (bad_span) flag(d.counters, kSpanning, bad_span, g);
    }
  }
}

// ---- the class -------------------------------------------------------------------------

// ---- device-driven searches ------------------------------------------------------------
//
// On one rank, or with peer memory, the GPU runs search.cpp's level loop itself. LevelControl
// holds what the host loop keeps; conclude_level updates it from the level table after each
// level (Beamer's rule, next_bottom_up, decides there) and a search is one CUDA graph: a while
// node around one level, whose if node takes the bottom-up or the top-down branch (the same
// steps and shares as the host-driven search queues). The two queues are the frontiers of
// even and odd levels, picked by the level in the state.
struct LevelControl {
  long long level;              // the level running (after conclude_level: the next one)
  int bottom_up;                // its direction
  int frontier_is_queue;        // this rank's frontier: its queue, else its words of the bitmap
  int done;                     // the last level found nothing, or a share's wait failed
  int rule;                     // Algorithm: direction_optimizing, top_down or bottom_up
  double alpha, beta;
  long long frontier_vertices, frontier_edges, previous_vertices, unexplored_edges;
  long long queue_size;         // this rank's frontier vertices
  long long top_down_levels, bottom_up_levels;
  ull status;                   // nonzero: a share's wait timed out (1 + the silent rank), or kRunaway
  long long hub_count;          // delegated hubs in the frontier (View::hub_list)
};
constexpr ull kRunaway = ~0ull;  // more levels than vertices: a bug, not a graph

constexpr int kConcludeThreads = 256;  // the block of conclude_level

// Global id -> hub index (every rank holds every hub's id), or -1.
__device__ __forceinline__ std::int64_t hub_index(const View& d, std::uint32_t id) {
  std::int64_t lo = 0, hi = d.hub_rank_first[d.parts];
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (d.hub_ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < d.hub_rank_first[d.parts] && d.hub_ids[lo] == id ? lo : -1;
}

// The hubs the level reached, from the bitmap its last share filled, as the list the next
// top-down level expands (one block of kConcludeThreads; the words of every rank, in order).
__device__ __forceinline__ void list_frontier_hubs(const View& d, LevelControl& c) {
  using Scan = cub::BlockScan<unsigned, kConcludeThreads>;
  __shared__ typename Scan::TempStorage temp;
  unsigned listed = 0;
  const std::int64_t words = d.hub_rank_word[d.parts];
  for (std::int64_t first = 0; first < words; first += kConcludeThreads) {  // uniform
    const std::int64_t i = first + threadIdx.x;
    const ull w = i < words ? d.hub_words[i] : 0ull;
    unsigned at = 0, total = 0;
    Scan(temp).ExclusiveSum(static_cast<unsigned>(__popcll(w)), at, total);
    if (w) {
      int r = 0;
      while (d.hub_rank_word[r + 1] <= i) ++r;
      const std::int64_t k0 = d.hub_rank_first[r] + (i - d.hub_rank_word[r]) * 64;
      at += listed;
      for (ull bits = w; bits; bits &= bits - 1) d.hub_list[at++] = static_cast<std::uint32_t>(k0 + __ffsll(bits) - 1);
    }
    listed += total;
    __syncthreads();  // temp is reused
  }
  if (threadIdx.x == 0) c.hub_count = listed;
}

// Level 0: the root (marked by its owner) is the frontier, one vertex of root_degree edges.
__global__ void begin_levels_kernel(View d, std::int64_t root, std::int64_t root_degree, std::int64_t directed_edges,
                                    int rule, double alpha, double beta, int row_words) {
  if (threadIdx.x == 0) {
    LevelControl& c = *d.control;
    const bool mine = root >= d.begin && root < d.begin + d.nl;
    if (mine) mark_root_at(d, static_cast<std::uint32_t>(root - d.begin), d.queues[0]);
    c.level = 0;
    c.frontier_is_queue = 1;
    c.done = 0;
    c.rule = rule;
    c.alpha = alpha;
    c.beta = beta;
    c.frontier_vertices = 1;
    c.frontier_edges = root_degree;
    c.previous_vertices = 0;
    c.unexplored_edges = directed_edges - root_degree;
    c.queue_size = mine ? 1 : 0;
    c.top_down_levels = c.bottom_up_levels = 0;
    c.status = 0;
    c.hub_count = 0;
    if (d.hub_words) {  // a hub root is expanded through the delegates, like any hub
      const std::int64_t k = hub_index(d, static_cast<std::uint32_t>(root));
      if (k >= 0) {
        d.hub_list[0] = static_cast<std::uint32_t>(k);
        c.hub_count = 1;
      }
    }
    c.bottom_up = rule == static_cast<int>(Algorithm::bottom_up) ||
                  (rule == static_cast<int>(Algorithm::direction_optimizing) &&
                   next_bottom_up(false, 1, 0, root_degree, c.unexplored_edges, static_cast<double>(d.n), alpha,
                                  beta));
  }
  clear_row_and_counters(d, row_words);
}

// The level's branch: the if node runs its first body (bottom-up) on a nonzero value.
// Starts the level's clock readings.
__global__ void route_level(View d, cudaGraphConditionalHandle branch) {
  const LevelControl& c = *d.control;
  cudaGraphSetConditional(branch, c.bottom_up ? 1u : 0u);
  if (c.level < kStampedLevels) {
    LevelStamp& s = d.stamps[c.level];
    s = LevelStamp{};
    s.start = comm::peer::global_nanoseconds();
    s.vertices = c.frontier_vertices;
    s.edges = c.frontier_edges;
    s.bottom_up = c.bottom_up;
  }
}

// The level's totals from the table (every rank's row, after the level's last share; on one
// rank, its own table): this rank's next frontier, the end of the search or the next level and
// its direction. Then the next level's row and counters start from zero. It sets the while node's
// condition: go on unless done.
__global__ void conclude_level(View d, const ull* table, int row_words, const ull* wait_status,
                               cudaGraphConditionalHandle loop) {
  LevelControl& c = *d.control;
  LevelStamp* stamp = nullptr;  // thread 0's
  if (threadIdx.x == 0) {
    stamp = c.level < kStampedLevels ? d.stamps + c.level : nullptr;
    if (stamp) stamp->conclude_in = comm::peer::global_nanoseconds();
    long long found = 0, edges = 0;
    for (int r = 0; r < d.parts; ++r) {
      found += static_cast<long long>(table[static_cast<std::int64_t>(r) * row_words + kRowFound]);
      edges += static_cast<long long>(table[static_cast<std::int64_t>(r) * row_words + kRowEdges]);
    }
    if (c.bottom_up) {
      ++c.bottom_up_levels;
      c.queue_size = static_cast<long long>(table[static_cast<std::int64_t>(d.me) * row_words + kRowFound]);
      c.frontier_is_queue = 0;
    } else {
      ++c.top_down_levels;
      c.queue_size = static_cast<long long>(d.counters->next_size);
      c.frontier_is_queue = 1;
    }
    if (wait_status && *wait_status) {
      c.status = *wait_status;
      c.done = 1;
    } else if (found == 0) {
      c.done = 1;
    } else if (c.level >= d.n) {
      c.status = kRunaway;
      c.done = 1;
    } else {
      c.previous_vertices = c.frontier_vertices;
      c.frontier_vertices = found;
      c.frontier_edges = edges;
      c.unexplored_edges -= edges;
      ++c.level;
      if (c.rule == static_cast<int>(Algorithm::direction_optimizing))
        c.bottom_up = next_bottom_up(c.bottom_up, c.frontier_vertices, c.previous_vertices, c.frontier_edges,
                                     c.unexplored_edges, static_cast<double>(d.n), c.alpha, c.beta);
    }
    cudaGraphSetConditional(loop, c.done ? 0u : 1u);
  }
  __syncthreads();  // on one rank the table holds the row cleared here
  if (d.hub_words && !c.done && !c.bottom_up) list_frontier_hubs(d, c);  // the hubs the level reached
  clear_row_and_counters(d, row_words);
  if (stamp) stamp->end = comm::peer::global_nanoseconds();
}

__device__ __forceinline__ std::uint32_t* level_queue(const View& d, long long level) { return d.queues[level & 1]; }

// Top-down branch. After a bottom-up level the frontier is this rank's words: as a queue first.
__global__ void __launch_bounds__(kBlock) driven_bitmap_to_queue(View d, std::int64_t words) {
  const LevelControl& c = *d.control;
  if (c.frontier_is_queue) return;
  bitmap_to_queue_rounds(my_frontier_words(d), words, d.nl, level_queue(d, c.level), &d.counters->selected);
}

// The frontier's items: the queue, then (with delegates) the frontier's hubs.
__device__ __forceinline__ std::int64_t frontier_hubs(const View& d, const LevelControl& c) {
  return d.hub_words ? c.hub_count : 0;
}

// Item q's edges to expand here: a queued vertex's row, none for a delegated hub (every rank
// expands its part through hub_list), a listed hub's part of its row on this rank.
__device__ __forceinline__ std::int64_t item_degree(const View& d, const std::uint32_t* queue, std::int64_t nq,
                                                    std::int64_t q) {
  if (q < nq) {
    const std::int64_t degree = queued_degree(d, queue, q);
    return degree >= d.hub_degree ? 0 : degree;
  }
  const std::uint32_t k = d.hub_list[q - nq];
  return d.hub_offsets[k + 1] - d.hub_offsets[k];
}

// The frontier's degrees and their exclusive scan for a queue whose length only the device
// knows: a small frontier in one block; else each block sums its chunk of the items (this
// kernel), then scans it after the sums of the blocks before it (driven_frontier_scan).
__global__ void __launch_bounds__(kSmallScanThreads) driven_frontier_sums(View d, std::int64_t* degrees,
                                                                         std::int64_t* sums) {
  const LevelControl& c = *d.control;
  const std::int64_t nq = c.queue_size, items = nq + frontier_hubs(d, c);
  if (items <= kSmallFrontier) return;
  const std::uint32_t* queue = level_queue(d, c.level);
  const Range chunk = block_range(items, static_cast<int>(gridDim.x), static_cast<int>(blockIdx.x));
  std::int64_t sum = 0;
  for (std::int64_t q = chunk.begin + threadIdx.x; q < chunk.begin + chunk.count; q += blockDim.x) {
    degrees[q] = item_degree(d, queue, nq, q);
    sum += degrees[q];
  }
  using Reduce = cub::BlockReduce<std::int64_t, kSmallScanThreads>;
  __shared__ typename Reduce::TempStorage temp;
  sum = Reduce(temp).Sum(sum);
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

__global__ void __launch_bounds__(kSmallScanThreads) driven_frontier_scan(View d, const std::int64_t* degrees,
                                                                         const std::int64_t* sums,
                                                                         std::int64_t* scan) {
  const LevelControl& c = *d.control;
  const std::int64_t nq = c.queue_size, items = nq + frontier_hubs(d, c);
  if (items <= kSmallFrontier) {
    if (blockIdx.x == 0) {
      const std::uint32_t* queue = level_queue(d, c.level);
      const std::int64_t total =
          block_scan_range(0, items, 0, [&](std::int64_t q) { return item_degree(d, queue, nq, q); }, scan);
      if (threadIdx.x == 0) scan[items] = total;
    }
    return;
  }
  using Reduce = cub::BlockReduce<std::int64_t, kSmallScanThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ std::int64_t carry;
  std::int64_t before = 0;
  for (unsigned b = threadIdx.x; b < blockIdx.x; b += blockDim.x) before += sums[b];
  before = Reduce(temp).Sum(before);
  if (threadIdx.x == 0) carry = before;
  __syncthreads();
  const Range chunk = block_range(items, static_cast<int>(gridDim.x), static_cast<int>(blockIdx.x));
  const std::int64_t end =
      block_scan_range(chunk.begin, chunk.begin + chunk.count, carry, [&](std::int64_t q) { return degrees[q]; }, scan);
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) scan[items] = end;
}

template <bool kDistributed>
__global__ void __launch_bounds__(kBlock) driven_top_down(View d, const std::int64_t* scan) {
  const LevelControl& c = *d.control;
  top_down_tiles<kDistributed>(d, level_queue(d, c.level), scan, c.queue_size, frontier_hubs(d, c),
                               level_queue(d, c.level + 1), static_cast<int>(c.level + 1));
}

// Unlike apply_shared (host-driven), the claims add to the row's found and edges from
// top_down, so the level's last share carries the level's totals.
__global__ void __launch_bounds__(kBlock) driven_apply_shared(View d, const uint2* pairs, std::int64_t slot_pairs,
                                                              const ull* table, int row_words) {
  const LevelControl& c = *d.control;
  claim_shared(d, pairs, slot_pairs, table, row_words, level_queue(d, c.level + 1), static_cast<int>(c.level + 1));
}

// Bottom-up branch. After a top-down level the frontier is this rank's queue: as its words
// first (cleared, then set).
__global__ void driven_clear_words(View d, std::int64_t words) {
  if (!d.control->frontier_is_queue) return;
  std::uint32_t* mine = my_frontier_words(d);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    mine[i] = 0;
}

__global__ void driven_queue_to_bitmap(View d) {
  const LevelControl& c = *d.control;
  if (!c.frontier_is_queue) return;
  set_queued_bits(level_queue(d, c.level), c.queue_size, my_frontier_words(d));
}

__global__ void __launch_bounds__(kBlock) driven_bottom_up(View d) {
  bottom_up_words(d, static_cast<int>(d.control->level + 1));
}

__global__ void __launch_bounds__(kBlock) driven_bottom_up_long(View d) {
  bottom_up_long_rows(d, static_cast<int>(d.control->level + 1));
}

// The vertices found replace this rank's words of the frontier.
__global__ void driven_next_to_frontier(View d, std::int64_t words) {
  std::uint32_t* mine = my_frontier_words(d);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    mine[i] = d.next[i];
}

template <class T>
T* bytes_as(std::byte* p) {
  return reinterpret_cast<T*>(p);
}

class CudaKernels final : public SearchKernels {
 public:
  CudaKernels(const LocalGraph& g, std::int64_t eager, const Delegates& delegates)
      : g_(g), part_(g.partition), eager_(eager) {
    if (g.vertices() > (std::int64_t{1} << 32) - 1)
      throw InputError("the cuda BFS stores vertex ids in 32 bits: a graph of " + std::to_string(g.vertices()) +
                       " vertices needs the cpu backend");
    int device = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&device));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
    const std::int64_t n = g.vertices(), nl = g.count, p = part_.parts;
    local_words32_ = 2 * ((nl + 63) / 64);
    global_words32_ = 2 * part_.words();

    offsets_ = DeviceBuffer<std::int64_t>(g.offsets.size());
    offsets_.upload(std::span<const std::int64_t>(g.offsets.data(), g.offsets.size()));
    columns_ = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(g.columns.size(), 1));
    upload_columns();
    input_degree_ = DeviceBuffer<std::int64_t>(std::max<std::int64_t>(nl, 1));
    if (nl > 0) copy_bytes(input_degree_.data(), g.input_degree.data(), nl * sizeof(std::int64_t));

    parent_ = DeviceBuffer<std::int64_t>(std::max<std::int64_t>(n, 1));
    level_ = DeviceBuffer<std::int32_t>(std::max<std::int64_t>(n, 1));
    fill_device_bytes(parent_.data(), 0xFF, parent_.bytes());
    fill_device_bytes(level_.data(), 0xFF, level_.bytes());
    visited_ = zeroed<std::uint32_t>(local_words32_);
    reached_before_ = zeroed<std::uint32_t>(local_words32_);
    next_ = zeroed<std::uint32_t>(local_words32_);
    frontier_ = zeroed<std::uint32_t>(global_words32_);
    frontier_words_ = frontier_.data();
    sent_ = zeroed<std::uint32_t>(p > 1 ? global_words32_ : 1);
    queue_ = DeviceBuffer<std::uint32_t>(std::max<std::int64_t>(nl, 1));
    next_queue_ = DeviceBuffer<std::uint32_t>(std::max<std::int64_t>(nl, 1));
    long_list_ = DeviceBuffer<std::uint32_t>(std::max<std::int64_t>(nl, 1));
    upload_delegates(delegates);
    degrees_ = DeviceBuffer<std::int64_t>(nl + hubs_ + 1);  // the frontier's items: queue, then hubs
    scan_ = DeviceBuffer<std::int64_t>(nl + hubs_ + 1);
    if (p > 1) {
      send_ = zeroed<uint2>(n + eager_);  // eager messages may carry unwritten slots: never uninitialised bytes
      recv_ = DeviceBuffer<uint2>(std::max<std::int64_t>(nl * (p - 1), 1));
      eager_recv_ = DeviceBuffer<uint2>(std::max<std::int64_t>(eager_ * (p - 1), 1));
    }
    if (append_shared_bytes(p) > 48 * 1024)  // the top-down kernel's staging, without opting in to more
      throw InputError("the cuda BFS runs on at most 3072 ranks (here: " + std::to_string(p) + ")");
    // Pairs for rank r go to its send region (first pair index: its first vertex).
    std::vector<uint2*> dest(static_cast<std::size_t>(p), nullptr);
    if (p > 1)
      for (int r = 0; r < p; ++r) dest[r] = r == g.rank ? nullptr : send_.data() + part_.range(r).begin;
    dest_pairs_ = DeviceBuffer<uint2*>(dest.size());
    dest_pairs_.upload(std::span<uint2* const>(dest.data(), dest.size()));
    row_words_ = static_cast<int>(level_row_size(part_.parts));
    table_ = zeroed<ull>(row_words_ * p);
    for (int slot = 0; slot < 2; ++slot) {
      host_table_[slot] = PinnedBuffer<ull>(static_cast<std::size_t>(row_words_ * p + 1));  // + a shared table's status
      table_copy_[slot].assign(static_cast<std::size_t>(row_words_ * p), 0);
      TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&table_copied_[slot], cudaEventDisableTiming));
    }
    counters_ = DeviceBuffer<Counters>(1);
    host_counters_ = PinnedBuffer<Counters>(1);
    shares_on_device_ = zeroed<ull>(1);
    control_ = DeviceBuffer<LevelControl>(1);
    stamps_ = zeroed<LevelStamp>(kStampedLevels);
    host_control_ = PinnedBuffer<LevelControl>(1);
    scan_blocks_ = 2 * sms_;
    chunk_sums_ = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(scan_blocks_));

    // CUB scratch for the largest scan of frontier degrees.
    std::size_t scan_bytes = 0;
    TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, degrees_.data(), scan_.data(), nl + 1));
    cub_scratch_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(scan_bytes, 1));

    view_.offsets = offsets_.data();
    view_.columns = columns_.data();
    view_.input_degree = input_degree_.data();
    view_.sources = nullptr;
    view_.begin = g.begin;
    view_.nl = nl;
    view_.n = n;
    view_.words64 = part_.words();
    view_.parts = part_.parts;
    view_.me = g.rank;
    view_.parent = parent_.data();
    view_.level = level_.data();
    view_.visited = visited_.data();
    view_.frontier = frontier_words_;
    view_.next = next_.data();
    view_.sent = sent_.data();
    view_.long_list = long_list_.data();
    view_.dest_pairs = dest_pairs_.data();
    view_.row = table_.data() + static_cast<std::int64_t>(row_words_) * g.rank;
    view_.counters = counters_.data();
    view_.control = control_.data();
    view_.stamps = stamps_.data();
    view_.queues[0] = queue_.data();
    view_.queues[1] = next_queue_.data();
    view_.hub_degree = INT64_MAX;  // until use_peer_memory gives the hub bitmap a place
    view_.hub_ids = hub_ids_.data();
    view_.hub_rank_first = hub_rank_first_.data();
    view_.hub_rank_word = hub_rank_word_.data();
    view_.hub_offsets = hub_offsets_.data();
    view_.hub_targets = hub_targets_.data();
    view_.hub_words = nullptr;
    view_.hub_list = hub_list_.data();
    TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
  }

  ~CudaKernels() override {
    for (cudaEvent_t e : table_copied_)
      if (e) (void)cudaEventDestroy(e);
    if (search_graph_) (void)cudaGraphExecDestroy(search_graph_);
  }
  CudaKernels(const CudaKernels&) = delete;
  CudaKernels& operator=(const CudaKernels&) = delete;

  stream_t stream() const override { return stream_.get(); }
  void synchronize() override { stream_.synchronize(); }

  void reset() override {
    const std::int64_t nl = g_.count;
    if (nl > 0) {
      TESSERA_CUDA_CHECK(cudaMemsetAsync(parent_.data() + g_.begin, 0xFF, nl * sizeof(std::int64_t), stream_));
      TESSERA_CUDA_CHECK(cudaMemsetAsync(level_.data() + g_.begin, 0xFF, nl * sizeof(std::int32_t), stream_));
    }
    TESSERA_CUDA_CHECK(cudaMemsetAsync(reached_before_.data(), 0, reached_before_.bytes(), stream_));
    windows_tracked_ = true;
    reset_bitmaps();
  }

  // Rewriting the windows costs 12 bytes per vertex (0.2 ms of a 3.4 ms search at scale 26 on
  // one H200); clearing what the last tree left outside the new one reads two bitmaps.
  void reset_for_claims() override {
    if (!windows_tracked_) return reset();
    reset_bitmaps();
  }

  void finish_search() override {
    if (!windows_tracked_ || g_.count == 0) return;
    clear_stale_entries<<<grid((g_.count + 31) / 32), kBlock, 0, stream_>>>(view_, reached_before_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
  }

  void reset_bitmaps() {
    TESSERA_CUDA_CHECK(cudaMemsetAsync(visited_.data(), 0, visited_.bytes(), stream_));
    if (part_.parts > 1) TESSERA_CUDA_CHECK(cudaMemsetAsync(sent_.data(), 0, sent_.bytes(), stream_));
    queue_size_ = 0;
  }

  void start(std::int64_t root) override {
    if (!g_.owns(root)) return;
    mark_root<<<1, 1, 0, stream_>>>(view_, static_cast<std::uint32_t>(root - g_.begin), queue_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
    queue_size_ = 1;
  }

  void top_down(int level) override {
    const std::int64_t nq = queue_size_;
    if (nq > 0 && nq <= kSmallFrontier) {
      small_frontier_scan<<<1, kSmallScanThreads, 0, stream_>>>(view_, queue_.data(), nq, scan_.data(), row_words_);
      TESSERA_CUDA_CHECK_LAUNCH();
    } else {
      clear(true, true);
    }
    if (nq > kSmallFrontier) {
      frontier_degrees<<<grid(nq + 1), kBlock, 0, stream_>>>(view_, queue_.data(), nq, degrees_.data());
      TESSERA_CUDA_CHECK_LAUNCH();
      std::size_t bytes = cub_scratch_.size();
      TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_scratch_.data(), bytes, degrees_.data(), scan_.data(),
                                                       nq + 1, stream_.get()));
    }
    if (nq > 0) {
      const std::size_t shared = append_shared_bytes(part_.parts);
      if (part_.parts > 1)
        top_down_kernel<true><<<sms_ * 8, kBlock, shared, stream_>>>(view_, queue_.data(), scan_.data(), nq,
                                                                  next_queue_.data(), level + 1);
      else
        top_down_kernel<false><<<sms_ * 8, kBlock, shared, stream_>>>(view_, queue_.data(), scan_.data(), nq,
                                                                   next_queue_.data(), level + 1);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
  }

  void apply_received(int level, std::int64_t count) override {
    if (count > 0) {  // adds to the row after apply_eager's claims; the next queue keeps growing
      apply_received_kernel<<<grid(count), kBlock, append_shared_bytes(1), stream_>>>(
          view_, recv_.data(), count, next_queue_.data(), level + 1);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
  }

  void apply_eager(int level) override {
    clear(false, false);
    if (eager_ > 0 && part_.parts > 1) {
      apply_eager_kernel<<<grid(eager_ * (part_.parts - 1)), kBlock, append_shared_bytes(1), stream_>>>(
          view_, eager_recv_.data(), table_.data(), eager_, g_.rank, row_words_, next_queue_.data(), level + 1);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
  }

  void swap_queues(std::int64_t count) override {
    std::swap(queue_, next_queue_);
    queue_size_ = count;
  }

  void queue_to_bitmap() override {
    std::uint32_t* mine = my_frontier_words();
    TESSERA_CUDA_CHECK(cudaMemsetAsync(mine, 0, local_words32_ * sizeof(std::uint32_t), stream_));
    if (queue_size_ > 0) {
      queue_to_bitmap_kernel<<<grid(queue_size_), kBlock, 0, stream_>>>(queue_.data(), queue_size_, mine);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
  }

  void bottom_up(int level) override {
    clear(true, true);
    if (g_.count > 0) {
      bottom_up_kernel<<<sms_ * 8, kBlock, 0, stream_>>>(view_, level + 1);
      TESSERA_CUDA_CHECK_LAUNCH();
      bottom_up_long_kernel<<<sms_ * 8, kBlock, 0, stream_>>>(view_, level + 1);
      TESSERA_CUDA_CHECK_LAUNCH();
      TESSERA_CUDA_CHECK(cudaMemcpyAsync(my_frontier_words(), next_.data(),
                                         local_words32_ * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream_));
    }
  }

  void bitmap_to_queue(std::int64_t count) override {
    if (g_.count > 0) {
      TESSERA_CUDA_CHECK(cudaMemsetAsync(&counters_.data()->selected, 0, sizeof(ull), stream_));
      const std::int64_t words = (g_.count + 31) / 32;
      bitmap_to_queue_kernel<<<grid((words + kBitmapWords - 1) / kBitmapWords), kBlock, 0, stream_>>>(
          my_frontier_words(), words, g_.count, queue_.data(), &counters_.data()->selected);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
    queue_size_ = count;
  }

  bool edge_parallel(int level) override {
    windows_tracked_ = false;  // it reaches vertices without the visited bitmap
    if (sources_.empty() && g_.local_entries() > 0) {
      sources_ = DeviceBuffer<std::uint32_t>(g_.local_entries());
      row_sources<<<grid(g_.count), kBlock, 0, stream_>>>(view_, sources_.data());
      TESSERA_CUDA_CHECK_LAUNCH();
      view_.sources = sources_.data();
    }
    clear(true, true);
    if (g_.local_entries() > 0) {
      edge_parallel_kernel<<<grid(g_.local_entries()), kBlock, 0, stream_>>>(view_, g_.local_entries(), level);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
    return read_counters().any != 0;
  }

  bool apply_received_plain(int level, std::int64_t count) override {
    TESSERA_CUDA_CHECK(cudaMemsetAsync(&counters_.data()->any, 0, sizeof(ull), stream_));
    if (count > 0) {
      apply_received_plain_kernel<<<grid(count), kBlock, 0, stream_>>>(view_, recv_.data(), count, level);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
    return read_counters().any != 0;
  }

  std::byte* level_table() override { return reinterpret_cast<std::byte*>(table_.data()); }
  void fetch_level_table(int slot) override {
    // After a share: the shared table and its status word; else this rank's table.
    const ull* from = shared_table_ ? shared_table_ : table_.data();
    const std::size_t bytes = table_.bytes() + (shared_table_ ? sizeof(ull) : 0);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(host_table_[slot].data(), from, bytes, cudaMemcpyDeviceToHost, stream_));
    TESSERA_CUDA_CHECK(cudaEventRecord(table_copied_[slot], stream_));
  }
  std::span<const std::int64_t> wait_level_table(int slot) override {
    TESSERA_CUDA_CHECK(cudaEventSynchronize(table_copied_[slot]));
    std::vector<std::int64_t>& out = table_copy_[slot];
    if (window_) throw_if_wait_failed(host_table_[slot].data()[out.size()]);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(host_table_[slot].data()[i]);
    return out;
  }

  bool exchanges_itself() const override { return window_ != nullptr; }

  bool use_peer_memory(comm::Context& ctx, std::string* why) override {
    const int p = part_.parts;
    const auto aligned = [](std::size_t b) { return (b + 255) / 256 * 256; };
    SharedLayout l{};
    std::size_t at = 0;
    for (std::size_t& t : l.table) {
      t = at;
      at += aligned((static_cast<std::size_t>(row_words_) * p + 1) * sizeof(ull));
    }
    l.frontier = at;
    at += aligned(static_cast<std::size_t>(global_words32_) * sizeof(std::uint32_t));
    l.hubs = at;
    at += aligned(static_cast<std::size_t>(hub_rank_word_host_.back()) * sizeof(ull));
    for (int r = 0; r < p; ++r) l.slot_pairs = std::max(l.slot_pairs, part_.range(r).count);
    l.receive = at;
    at += static_cast<std::size_t>(p - 1) * static_cast<std::size_t>(l.slot_pairs) * sizeof(uint2);
    try {
      window_ = std::make_unique<comm::PeerWindow>(ctx, at);  // collective; zeroed
    } catch (const comm::CollectiveError& e) {  // the same on every rank; nothing changed yet
      if (why) *why = e.what();
      return false;
    }
    comm::agree(ctx, [&] {
      layout_ = l;
      // Pairs for rank r go to r's receive area, slot k = this rank's place among r's others.
      std::vector<uint2*> dest(static_cast<std::size_t>(p), nullptr);
      for (int r = 0; r < p; ++r)
        if (r != g_.rank)
          dest[r] = reinterpret_cast<uint2*>(window_->remote(r) + l.receive) +
                    static_cast<std::int64_t>(g_.rank < r ? g_.rank : g_.rank - 1) * l.slot_pairs;
      dest_pairs_.upload(std::span<uint2* const>(dest.data(), dest.size()));
      frontier_words_ = reinterpret_cast<std::uint32_t*>(window_->local() + l.frontier);
      view_.frontier = frontier_words_;
      if (hubs_ > 0) {  // delegates: device-driven searches expand the hubs' rows on every rank
        view_.hub_words = reinterpret_cast<ull*>(window_->local() + l.hubs);
        view_.hub_degree = hub_degree_;
      }
      // What the transport's exchanges used.
      send_ = DeviceBuffer<uint2>();
      recv_ = DeviceBuffer<uint2>();
      eager_recv_ = DeviceBuffer<uint2>();
      frontier_ = DeviceBuffer<std::uint32_t>();
      eager_ = 0;
      TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
    });
    return true;
  }

  void share(bool frontier) override {
    const int t = static_cast<int>(shares_++ & 1);
    queue_share(t, frontier, false, false);
    shared_table_ = shared_table(t);
  }

  void apply_shared(int level, std::int64_t bound) override {
    clear(false, false);
    const std::int64_t most = std::min(bound, layout_.slot_pairs * (part_.parts - 1));
    if (most > 0) {
      apply_shared_kernel<<<grid(most), kBlock, append_shared_bytes(1), stream_>>>(
          view_, reinterpret_cast<const uint2*>(window_->local() + layout_.receive), layout_.slot_pairs,
          shared_table_, row_words_, next_queue_.data(), level + 1);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
  }

  void wake_peer_links() override {
    if (!window_) return;
    constexpr std::int64_t kWakeBytes = std::int64_t{1} << 20;  // spread over every link (8 B did not do)
    const std::int64_t pairs = std::min<std::int64_t>(kWakeBytes / sizeof(uint2), layout_.slot_pairs);
    if (pairs <= 0) return;
    wake_links_kernel<<<grid(pairs), kBlock, 0, stream_>>>(view_, pairs);
    TESSERA_CUDA_CHECK_LAUNCH();
  }

  bool can_drive_levels() const override { return part_.parts == 1 || window_ != nullptr; }

  void begin_levels(std::int64_t root, std::int64_t root_degree, Algorithm algorithm,
                    const DirectionPolicy& policy) override {
    if (!search_graph_) make_graph();
    begin_levels_kernel<<<1, 64, 0, stream_>>>(view_, root, root_degree, g_.directed_edges, static_cast<int>(algorithm),
                                               policy.alpha, policy.beta, row_words_);
    TESSERA_CUDA_CHECK_LAUNCH();
  }

  void queue_levels() override { TESSERA_CUDA_CHECK(cudaGraphLaunch(search_graph_, stream_)); }

  LevelState level_state() override {
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(host_control_.data(), control_.data(), sizeof(LevelControl),
                                       cudaMemcpyDeviceToHost, stream_));
    stream_.synchronize();
    const LevelControl& c = *host_control_.data();
    if (c.status == kRunaway) throw std::logic_error("bfs: the device-driven search ran more levels than vertices");
    throw_if_wait_failed(c.status);
    LevelState s;
    s.done = c.done != 0;
    s.level = static_cast<int>(c.level);
    s.top_down_levels = static_cast<int>(c.top_down_levels);
    s.bottom_up_levels = static_cast<int>(c.bottom_up_levels);
    return s;
  }

  std::vector<LevelClock> level_clocks() override {
    const auto levels = static_cast<std::size_t>(std::min<long long>(host_control_.data()->level + 1, kStampedLevels));
    std::vector<LevelStamp> stamps(levels);
    copy_bytes(stamps.data(), stamps_.data(), levels * sizeof(LevelStamp));
    std::vector<LevelClock> out;
    const auto ms = [](ull from, ull to) { return to > from ? static_cast<double>(to - from) * 1e-6 : 0.0; };
    for (std::size_t i = 0; i < stamps.size(); ++i) {
      const LevelStamp& s = stamps[i];
      LevelClock c;
      c.level = static_cast<int>(i);
      c.bottom_up = s.bottom_up != 0;
      c.vertices = s.vertices;
      c.edges = s.edges;
      for (int k = 0; k < 2; ++k) {
        c.shares[k] = s.share_in[k] ? ms(s.share_in[k], s.share_out[k]) : 0.0;
        c.waits[k] = s.share_in[k] ? ms(s.share_signalled[k], s.share_out[k]) : 0.0;
      }
      c.steps = ms(s.start, s.conclude_in) - c.shares[0] - c.shares[1];
      c.conclude = ms(s.conclude_in, s.end);
      c.gap = i > 0 ? ms(stamps[i - 1].end, s.start) : 0.0;
      c.start = static_cast<double>(s.start) * 1e-6;
      out.push_back(c);
    }
    return out;
  }

  std::size_t pair_bytes() const override { return sizeof(uint2); }
  std::byte* send_pairs() override { return reinterpret_cast<std::byte*>(send_.data()); }
  std::byte* receive_pairs() override { return reinterpret_cast<std::byte*>(recv_.data()); }
  std::int64_t receive_capacity() const override { return part_.parts > 1 ? static_cast<std::int64_t>(recv_.size()) : 0; }
  std::int64_t eager_capacity() const override { return part_.parts > 1 ? eager_ : 0; }
  std::byte* eager_receive() override { return reinterpret_cast<std::byte*>(eager_recv_.data()); }
  std::byte* frontier_bitmap() override { return reinterpret_cast<std::byte*>(frontier_words_); }
  std::byte* parent_global() override { return reinterpret_cast<std::byte*>(parent_.data()); }
  std::byte* level_global() override { return reinterpret_cast<std::byte*>(level_.data()); }

  Reached reached() override {
    clear_counters();
    if (g_.count > 0) {
      count_reached<<<grid(g_.count), kBlock, 0, stream_>>>(view_);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
    const Counters c = read_counters();
    return {static_cast<std::int64_t>(c.reached), static_cast<std::int64_t>(c.input_degree)};
  }

  void download_window(std::span<std::int64_t> parent, std::span<std::int32_t> level) override {
    stream_.synchronize();
    copy_bytes(parent.data(), parent_.data() + g_.begin, g_.count * sizeof(std::int64_t));
    copy_bytes(level.data(), level_.data() + g_.begin, g_.count * sizeof(std::int32_t));
  }
  void download_global(std::span<std::int64_t> parent, std::span<std::int32_t> level) override {
    stream_.synchronize();
    copy_bytes(parent.data(), parent_.data(), g_.vertices() * sizeof(std::int64_t));
    copy_bytes(level.data(), level_.data(), g_.vertices() * sizeof(std::int32_t));
  }
  void upload_window(std::span<const std::int64_t> parent, std::span<const std::int32_t> level) override {
    windows_tracked_ = false;
    stream_.synchronize();
    copy_bytes(parent_.data() + g_.begin, parent.data(), g_.count * sizeof(std::int64_t));
    copy_bytes(level_.data() + g_.begin, level.data(), g_.count * sizeof(std::int32_t));
  }

  CheckCounts check(std::int64_t root) override {
    const std::int64_t n = g_.vertices();
    if (anc_.empty()) {
      anc_ = DeviceBuffer<std::int64_t>(n);
      anc_next_ = DeviceBuffer<std::int64_t>(n);
    }
    first_ancestors<<<grid(n), kBlock, 0, stream_>>>(parent_.data(), n, root, anc_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
    for (int round = 0; round < jump_rounds(n); ++round) {
      clear_counters();
      jump<<<grid(n), kBlock, 0, stream_>>>(anc_.data(), n, anc_next_.data(), counters_.data());
      TESSERA_CUDA_CHECK_LAUNCH();
      std::swap(anc_, anc_next_);
      if (read_counters().changed == 0) break;
    }
    clear_counters();
    TESSERA_CUDA_CHECK(cudaMemsetAsync(counters_.data()->check_first, 0xFF, sizeof(ull) * kChecks, stream_));
    if (g_.count > 0) {
      check_vertices<<<grid(g_.count), kBlock, 0, stream_>>>(view_, root, anc_.data());
      TESSERA_CUDA_CHECK_LAUNCH();
      check_edges<<<grid(g_.count * 32), kBlock, 0, stream_>>>(view_);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
    const Counters c = read_counters();
    CheckCounts out;
    for (int k = 0; k < kChecks; ++k) {
      out.count[k] = static_cast<std::int64_t>(c.check_count[k]);
      out.first[k] = c.check_first[k] == ~0ull ? INT64_MAX : static_cast<std::int64_t>(c.check_first[k]);
    }
    return out;
  }

 private:
  template <class T>
  static DeviceBuffer<T> zeroed(std::int64_t n) {
    DeviceBuffer<T> b(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
    fill_device_bytes(b.data(), 0, b.bytes());
    return b;
  }

  int grid(std::int64_t items) const {
    const std::int64_t blocks = (items + kBlock - 1) / kBlock;
    return static_cast<int>(std::clamp<std::int64_t>(blocks, 1, std::int64_t{sms_} * 32));
  }

  void clear_counters() { TESSERA_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, sizeof(Counters), stream_)); }

  std::uint32_t* my_frontier_words() const { return frontier_words_ + g_.begin / 32; }

  static void throw_if_wait_failed(ull status) {
    if (status != 0)
      throw std::runtime_error("bfs: rank " + std::to_string(status - 1) + " did not share its level counts within " +
                               std::to_string(static_cast<int>(comm::PeerWindow::kWaitTimeoutSeconds)) +
                               " s (a failed rank, or ranks out of step)");
  }

  // LevelControl::level on the device: the level a device-driven search is running.
  const long long* level_now() const {
    return reinterpret_cast<const long long*>(reinterpret_cast<const char*>(control_.data()) +
                                              offsetof(LevelControl, level));
  }

  const ull* shared_table(int t) const { return reinterpret_cast<const ull*>(window_->local() + layout_.table[t]); }

  // Queues a share of this rank's row (and, with `frontier`, its words of the frontier bitmap;
  // with `hubs`, its words of the hub bitmap) into table t of every rank; `stamped`: a
  // device-driven level's share, which takes the level's clock readings for share t.
  void queue_share(int t, bool frontier, bool hubs, bool stamped) {
    const Range words = block_range(part_.words(), part_.parts, g_.rank);
    const std::int64_t count = frontier ? words.count : 0;
    HubShare h;
    if (hubs && view_.hub_words) {
      h.offset = layout_.hubs;
      h.word_begin = hub_rank_word_host_[g_.rank];
      h.count = my_hubs_;
      h.ids = hub_ids_.data() + my_first_hub_;
      h.begin = g_.begin;
      h.visited = visited_.data();
      h.level = level_.data();
      h.level_now = level_now();
    }
    const std::int64_t threads = std::max(count, h.count);
    const int blocks = static_cast<int>(std::clamp<std::int64_t>((threads + kBlock - 1) / kBlock, 1, std::int64_t{sms_} * 4));
    ShareStamps stamps;
    if (stamped) stamps = ShareStamps{stamps_.data(), level_now(), t};
    share_kernel<<<blocks, kBlock, 0, stream_>>>(window_->view(), view_.row, row_words_, layout_.table[t],
                                                 layout_.frontier, words.begin, count, h, shares_on_device_.data(),
                                                 stamps);
    TESSERA_CUDA_CHECK_LAUNCH();
  }

  // The delegated hubs on the device (none: empty buffers of one entry).
  void upload_delegates(const Delegates& dl) {
    hubs_ = dl.count();
    hub_degree_ = dl.active() ? dl.threshold : INT64_MAX;
    std::vector<std::uint32_t> ids(dl.hubs.begin(), dl.hubs.end());
    hub_rank_word_host_ = dl.active() ? dl.word_first : std::vector<std::int64_t>(part_.parts + 1, 0);
    my_first_hub_ = dl.active() ? dl.first[g_.rank] : 0;
    my_hubs_ = dl.active() ? dl.first[g_.rank + 1] - dl.first[g_.rank] : 0;
    const std::vector<std::int64_t> first = dl.active() ? dl.first : std::vector<std::int64_t>(part_.parts + 1, 0);
    const std::vector<std::int64_t> offsets = dl.active() ? dl.offsets : std::vector<std::int64_t>(1, 0);
    const auto upload = [](auto& buffer, const auto& host) {
      using T = typename std::decay_t<decltype(host)>::value_type;
      buffer = std::decay_t<decltype(buffer)>(std::max<std::size_t>(host.size(), 1));
      if (!host.empty()) buffer.upload(std::span<const T>(host.data(), host.size()));
    };
    upload(hub_ids_, ids);
    upload(hub_rank_first_, first);
    upload(hub_rank_word_, hub_rank_word_host_);
    upload(hub_offsets_, offsets);
    upload(hub_targets_, dl.targets);
    hub_list_ = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(std::max<std::int64_t>(hubs_, 1)));
  }

  // ---- the graphs of a device-driven search --------------------------------------------

  // The steps of one level's branches, as the host-driven search queues them, but with every
  // size and level read from the LevelControl. With peer memory, the branch's share goes to
  // table 0 and the level's last share to table 1 (a rank passes the next level's first
  // share only after every rank has passed its last one, so no table is overwritten early).
  void queue_top_down_branch() {
    const std::int64_t words = (g_.count + 31) / 32;
    driven_bitmap_to_queue<<<grid((words + kBitmapWords - 1) / kBitmapWords), kBlock, 0, stream_>>>(view_, words);
    TESSERA_CUDA_CHECK_LAUNCH();
    driven_frontier_sums<<<scan_blocks_, kSmallScanThreads, 0, stream_>>>(view_, degrees_.data(), chunk_sums_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
    driven_frontier_scan<<<scan_blocks_, kSmallScanThreads, 0, stream_>>>(view_, degrees_.data(), chunk_sums_.data(),
                                                                          scan_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
    const std::size_t shared = append_shared_bytes(part_.parts);
    if (part_.parts > 1)
      driven_top_down<true><<<sms_ * 8, kBlock, shared, stream_>>>(view_, scan_.data());
    else
      driven_top_down<false><<<sms_ * 8, kBlock, shared, stream_>>>(view_, scan_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
    if (window_) {
      queue_share(0, false, false, true);
      driven_apply_shared<<<sms_ * 8, kBlock, append_shared_bytes(1), stream_>>>(
          view_, reinterpret_cast<const uint2*>(window_->local() + layout_.receive), layout_.slot_pairs,
          shared_table(0), row_words_);
      TESSERA_CUDA_CHECK_LAUNCH();
    }
  }

  void queue_bottom_up_branch() {
    const std::int64_t words = local_words32_;
    driven_clear_words<<<grid(words), kBlock, 0, stream_>>>(view_, words);
    TESSERA_CUDA_CHECK_LAUNCH();
    driven_queue_to_bitmap<<<sms_ * 8, kBlock, 0, stream_>>>(view_);
    TESSERA_CUDA_CHECK_LAUNCH();
    if (window_) queue_share(0, true, false, true);
    driven_bottom_up<<<sms_ * 8, kBlock, 0, stream_>>>(view_);
    TESSERA_CUDA_CHECK_LAUNCH();
    driven_bottom_up_long<<<sms_ * 8, kBlock, 0, stream_>>>(view_);
    TESSERA_CUDA_CHECK_LAUNCH();
    driven_next_to_frontier<<<grid(words), kBlock, 0, stream_>>>(view_, words);
    TESSERA_CUDA_CHECK_LAUNCH();
  }

  // Captures what `queue` launches on the stream into graph g, after node `after` (if any).
  template <class Queue>
  void capture_into(cudaGraph_t g, const cudaGraphNode_t* after, Queue queue) {
    TESSERA_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream_, g, after, nullptr, after ? 1 : 0,
                                                     cudaStreamCaptureModeThreadLocal));
    try {
      queue();
    } catch (...) {
      cudaGraph_t ignored = nullptr;
      (void)cudaStreamEndCapture(stream_, &ignored);
      throw;
    }
    TESSERA_CUDA_CHECK(cudaStreamEndCapture(stream_, &g));
  }

  // One level into the empty graph g: route_level, an if node over the two branches, the
  // level's last share and conclude_level (which sets the while node's `loop`).
  void build_level(cudaGraph_t g, cudaGraphConditionalHandle loop) {
    cudaGraphConditionalHandle branch = 0;
    TESSERA_CUDA_CHECK(cudaGraphConditionalHandleCreate(&branch, g, 0, 0));
    capture_into(g, nullptr, [&] {
      route_level<<<1, 1, 0, stream_>>>(view_, branch);
      TESSERA_CUDA_CHECK_LAUNCH();
    });
    cudaGraphNode_t route = nullptr;
    std::size_t nodes = 1;
    TESSERA_CUDA_CHECK(cudaGraphGetNodes(g, &route, &nodes));
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = branch;
    p.conditional.type = cudaGraphCondTypeIf;
    p.conditional.size = 2;  // [0] when the value is nonzero (bottom-up), [1] otherwise
    cudaGraphNode_t branches = nullptr;
    TESSERA_CUDA_CHECK(cudaGraphAddNode(&branches, g, &route, nullptr, 1, &p));
    capture_into(p.conditional.phGraph_out[0], nullptr, [&] { queue_bottom_up_branch(); });
    capture_into(p.conditional.phGraph_out[1], nullptr, [&] { queue_top_down_branch(); });
    capture_into(g, &branches, [&] {
      if (window_) queue_share(1, false, true, true);  // the level's last share carries the hubs it found
      conclude_level<<<1, kConcludeThreads, 0, stream_>>>(view_, window_ ? shared_table(1) : table_.data(), row_words_,
                                                          window_ ? window_->view().status : nullptr, loop);
      TESSERA_CUDA_CHECK_LAUNCH();
    });
  }

  // A graph being built: destroyed when it goes out of scope, so a CUDA error part-way through
  // building leaves nothing behind (the executable graph keeps what it needs).
  class GraphDraft {
   public:
    GraphDraft() { TESSERA_CUDA_CHECK(cudaGraphCreate(&g_, 0)); }
    ~GraphDraft() { (void)cudaGraphDestroy(g_); }
    GraphDraft(const GraphDraft&) = delete;
    GraphDraft& operator=(const GraphDraft&) = delete;
    cudaGraph_t get() const { return g_; }
    cudaGraphExec_t instantiate() const {
      cudaGraphExec_t exec = nullptr;
      TESSERA_CUDA_CHECK(cudaGraphInstantiate(&exec, g_, 0));
      return exec;
    }

   private:
    cudaGraph_t g_ = nullptr;
  };

  // The search graph: a while node around a level.
  void make_graph() {
    stream_.synchronize();  // captures begin on an idle stream
    GraphDraft search;
    const cudaGraph_t g = search.get();
    cudaGraphConditionalHandle loop = 0;
    TESSERA_CUDA_CHECK(cudaGraphConditionalHandleCreate(&loop, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = loop;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    TESSERA_CUDA_CHECK(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p));
    build_level(p.conditional.phGraph_out[0], loop);
    search_graph_ = search.instantiate();
  }

  // Before a level step: this rank's row (whole, or found and edges only) and the counters.
  void clear(bool whole_row, bool counters) {
    clear_step<<<1, 64, 0, stream_>>>(view_, whole_row ? row_words_ : kRowPairs, counters);
    TESSERA_CUDA_CHECK_LAUNCH();
  }

  // Waits for the step and returns its counters.
  Counters read_counters() {
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(host_counters_.data(), counters_.data(), sizeof(Counters),
                                       cudaMemcpyDeviceToHost, stream_));
    stream_.synchronize();
    return *host_counters_.data();
  }

  // The columns as 32-bit ids, narrowed on the host by all threads into two pinned staging
  // buffers in turn, each copied while the other is filled (at scale 26 the graph is 8 GiB
  // on the device: a pageable copy, or narrowing on one thread, takes seconds).
  void upload_columns() {
    const std::int64_t total = g_.local_entries();
    if (total == 0) return;
    const std::int64_t chunk = std::min<std::int64_t>(total, std::int64_t{1} << 25);  // 128 MiB
    PinnedBuffer<std::uint32_t> stage[2] = {PinnedBuffer<std::uint32_t>(static_cast<std::size_t>(chunk)),
                                            PinnedBuffer<std::uint32_t>(static_cast<std::size_t>(chunk))};
    cudaEvent_t copied[2] = {};
    for (cudaEvent_t& e : copied) TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (std::int64_t first = 0, k = 0; first < total; first += chunk, ++k) {
      const int s = static_cast<int>(k & 1);
      const std::int64_t n = std::min(chunk, total - first);
      if (k >= 2) TESSERA_CUDA_CHECK(cudaEventSynchronize(copied[s]));  // its previous copy is done
      narrow_columns(g_, first, std::span<std::uint32_t>(stage[s].data(), static_cast<std::size_t>(n)));
      TESSERA_CUDA_CHECK(cudaMemcpyAsync(columns_.data() + first, stage[s].data(), n * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice, stream_));
      TESSERA_CUDA_CHECK(cudaEventRecord(copied[s], stream_));
    }
    stream_.synchronize();
    for (cudaEvent_t e : copied) TESSERA_CUDA_CHECK(cudaEventDestroy(e));
  }

  const LocalGraph& g_;
  VertexPartition part_;
  Stream stream_;
  int sms_ = 1;
  std::int64_t local_words32_ = 0, global_words32_ = 0;
  std::int64_t queue_size_ = 0;
  DeviceBuffer<std::int64_t> offsets_, input_degree_, parent_, degrees_, scan_, anc_, anc_next_;
  DeviceBuffer<uint2*> dest_pairs_;  // View::dest_pairs
  std::uint32_t* frontier_words_ = nullptr;  // frontier_, or the frontier in the peer window
  // Peer memory (use_peer_memory): the window, its layout, the shares so far and the table
  // the last one filled.
  std::unique_ptr<comm::PeerWindow> window_;
  SharedLayout layout_{};
  std::uint64_t shares_ = 0;
  const ull* shared_table_ = nullptr;
  // The visited bitmap of the last search that finish_search saw; while windows_tracked_, the
  // windows hold -1 wherever it is clear (reset_for_claims).
  DeviceBuffer<std::uint32_t> reached_before_;
  bool windows_tracked_ = false;
  DeviceBuffer<std::uint32_t> columns_, visited_, next_, frontier_, sent_, queue_, next_queue_, long_list_, sources_;
  DeviceBuffer<std::int32_t> level_;
  DeviceBuffer<uint2> send_, recv_, eager_recv_;
  std::int64_t eager_ = 0;
  int row_words_ = 0;
  DeviceBuffer<ull> table_;              // the level table
  PinnedBuffer<ull> host_table_[2];      // its copies on the host (two slots)
  std::vector<std::int64_t> table_copy_[2];
  cudaEvent_t table_copied_[2] = {};
  DeviceBuffer<Counters> counters_;
  PinnedBuffer<Counters> host_counters_;
  // Device-driven searches: the loop's state, the share count (the shares' sequence numbers),
  // the frontier scan's per-block sums, the search graph (made at the first search) and the
  // levels' clock readings.
  DeviceBuffer<LevelControl> control_;
  PinnedBuffer<LevelControl> host_control_;
  DeviceBuffer<ull> shares_on_device_;
  DeviceBuffer<std::int64_t> chunk_sums_;
  int scan_blocks_ = 1;
  cudaGraphExec_t search_graph_ = nullptr;
  DeviceBuffer<LevelStamp> stamps_;  // View::stamps
  DeviceBuffer<unsigned char> cub_scratch_;
  // Delegated hubs (delegates.hpp): their count, degree (INT64_MAX: none), this rank's, and
  // each rank's first word of the hub bitmap (ranks + 1: the last is its size).
  std::int64_t hubs_ = 0, hub_degree_ = INT64_MAX, my_first_hub_ = 0, my_hubs_ = 0;
  std::vector<std::int64_t> hub_rank_word_host_;
  DeviceBuffer<std::uint32_t> hub_ids_, hub_targets_, hub_list_;
  DeviceBuffer<std::int64_t> hub_rank_first_, hub_rank_word_, hub_offsets_;
  View view_{};
};

}  // namespace

std::unique_ptr<SearchKernels> make_cuda_kernels(const LocalGraph& graph, std::int64_t eager,
                                                 const Delegates& delegates) {
  return std::make_unique<CudaKernels>(graph, eager, delegates);
}

}  // namespace tessera::bfs
