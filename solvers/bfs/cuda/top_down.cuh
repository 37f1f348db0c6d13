#pragma once
// The top-down step's device code, which the GPU-run level loop (device_loop.cu) reuses; its
// kernels are in top_down.cu.
//
// Top-down is load-balanced over edges, not vertices (Kronecker degrees span six orders of
// magnitude): the frontier's degrees are prefix-summed with CUB, each block takes a tile of
// kTile consecutive frontier edges and each thread finds its edge's vertex by a binary
// search within the tile's short range of the scan. A neighbour is claimed with one atomicOr
// on the visited bitmap (a plain read first skips most of them); winners, and vertices sent
// to other ranks, are appended a tile at a time (TileAppend: shared-memory slots, then one
// global atomic per destination and tile). A frontier of up to kSmallFrontier vertices is
// scanned by one block (small_frontier_scan) instead of CUB's device scan. A vertex's edge
// back to its own parent is never sent: the parent is reached already. A frontier vertex of
// degree 1 expands nothing at all (expanded_degree), its one edge being that one.
#include <cub/cub.cuh>

#include "solvers/bfs/cuda/common.cuh"

namespace tessera::bfs::gpu {

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

// The edges top-down expands from vertex v (a local id) at `level`, and from queued vertex q
// (expanded_degree). After level 0 a vertex of degree 1 has one neighbour, its parent, which
// is reached already (graphs are undirected, with no self-loops or repeats), so it expands
// nothing. In the top-down level after bottom-up ones most of the frontier is such vertices
// (scale 26: at least 1.43 M of 1.61 M, which have 1.78 M edges).
__device__ __forceinline__ std::int64_t expanded_row(const View& d, std::uint32_t v, int level) {
  const std::int64_t degree = d.offsets[v + 1] - d.offsets[v];
  return degree == 1 && level > 0 ? 0 : degree;
}

__device__ __forceinline__ std::int64_t expanded_degree(const View& d, const std::uint32_t* queue, std::int64_t q,
                                                        int level) {
  return expanded_row(d, queue[q], level);
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
        } else if (d.parent[from] != w && first_send(d, w)) {  // not back to a queued vertex's parent
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

}  // namespace tessera::bfs::gpu
