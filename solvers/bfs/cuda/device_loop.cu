// The GPU-run level loop: its kernels, and the CUDA graph of a search that the host class
// (cuda_engine.cuh) builds from them and launches (the DeviceLoop part of the backend).
//
// Delegated hubs (delegates.hpp), in device-driven searches through peer memory: a top-down
// level's items are its queue (hubs counted with no edges) then the frontier's hubs, each
// with this rank's part of its row; the level's last share passes which of the rank's hubs
// the level reached, and conclude_level lists them for the next level.
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "comm/peer_sync.cuh"
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/bottom_up.cuh"
#include "solvers/bfs/cuda/cuda_engine.cuh"
#include "solvers/bfs/cuda/device_loop.cuh"
#include "solvers/bfs/cuda/peer.cuh"
#include "solvers/bfs/cuda/top_down.cuh"

namespace tessera::bfs::gpu {
namespace {

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
    if (!__syncthreads_or(w != 0)) continue;  // most words are zero
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
    c.launch_error = 0;
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
  if (d.hub_words) {  // no group of this rank's hubs is settled yet
    const std::int64_t groups = (d.hub_rank_first[d.me + 1] - d.hub_rank_first[d.me] + 31) / 32;
    for (std::int64_t i = threadIdx.x; i < groups; i += blockDim.x) d.hub_settled[i] = 0;
  }
  clear_row_and_counters(d, row_words);
}

__device__ __forceinline__ std::uint32_t* level_queue(const View& d, long long level) { return d.queues[level & 1]; }

// The frontier's items: the queue, then (with delegates) the frontier's hubs.
__device__ __forceinline__ std::int64_t frontier_hubs(const View& d, const LevelControl& c) {
  return d.hub_words ? c.hub_count : 0;
}

// The branch of the level about to run (LevelPath), the start of its clock readings, and the
// tail launch of the branch's graph (it starts when the graph of the calling kernel ends).
__device__ __forceinline__ void route_level(const View& d, LevelControl& c, const cudaGraphExec_t* levels, ull now) {
  LevelPath p;
  if (c.bottom_up) p = c.frontier_is_queue ? LevelPath::bottom_up_from_queue : LevelPath::bottom_up;
  else if (!c.frontier_is_queue) p = LevelPath::top_down_from_words;
  else {
    const std::int64_t items = c.queue_size + frontier_hubs(d, c);
    if (items <= kBlock && c.frontier_edges <= kTinyBlocks * kTile) p = LevelPath::top_down_tiny;
    else p = items > kSmallFrontier ? LevelPath::top_down : LevelPath::top_down_small;
  }
  if (c.level < kStampedLevels) {
    LevelStamp& s = d.stamps[c.level];
    s = LevelStamp{};
    s.start = now;
    s.vertices = c.frontier_vertices;
    s.edges = c.frontier_edges;
    s.bottom_up = c.bottom_up;
  }
  const cudaError_t launched = cudaGraphLaunch(levels[static_cast<unsigned>(p)], cudaStreamGraphTailLaunch);
  if (launched != cudaSuccess) {  // the search ends here; level_state reports it
    c.launch_error = static_cast<int>(launched);
    c.done = 1;
  }
}

// Before the first level (each later level is routed by the conclusion of the one before).
__global__ void route_first_level(View d, const cudaGraphExec_t* levels) {
  route_level(d, *d.control, levels, comm::peer::global_nanoseconds());
}

// The level's totals from the table (every rank's row, after the level's last share; on one
// rank, its own table): this rank's next frontier, the end of the search or the next level and
// its direction. Then the next level's row and counters start from zero, and unless the search
// is done the next level is routed.
__global__ void conclude_level(View d, const ull* table, int row_words, const ull* wait_status,
                               const cudaGraphExec_t* levels) {
  LevelControl& c = *d.control;
  LevelStamp* stamp = nullptr;  // thread 0's
  if (threadIdx.x == 0) {
    stamp = c.level < kStampedLevels ? d.stamps + c.level : nullptr;
    if (stamp) stamp->conclude_in = comm::peer::global_nanoseconds();
    long long found = 0, edges = 0, hubs = 0;
    for (int r = 0; r < d.parts; ++r) {
      found += static_cast<long long>(table[static_cast<std::int64_t>(r) * row_words + kRowFound]);
      edges += static_cast<long long>(table[static_cast<std::int64_t>(r) * row_words + kRowEdges]);
      hubs += static_cast<long long>(table[static_cast<std::int64_t>(r) * row_words + kRowHubs]);
    }
    c.hub_count = hubs;  // listed below, where the next level is top-down
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
  }
  __syncthreads();  // on one rank the table holds the row cleared here
  if (d.hub_words && !c.done && !c.bottom_up && c.hub_count > 0) list_frontier_hubs(d, c);  // the hubs reached
  clear_row_and_counters(d, row_words);
  if (threadIdx.x == 0) {
    const ull now = comm::peer::global_nanoseconds();
    if (stamp) stamp->end = now;
    if (!c.done) route_level(d, c, levels, now);  // after list_frontier_hubs: its count decides too
  }
}

// The edges owned vertex v expands here at `level`: its row (expanded_row), or none for a
// delegated hub (every rank expands its part through hub_list).
__device__ __forceinline__ std::int64_t queued_item_degree(const View& d, std::uint32_t v, int level) {
  const std::int64_t degree = expanded_row(d, v, level);
  return degree >= d.hub_degree ? 0 : degree;
}

// Top-down branch. After a bottom-up level the frontier is this rank's words: as a queue first,
// of the vertices that expand something (expanded_row: in the level after the bottom-ups,
// nearly the whole frontier has degree 1). Left out here, the frontier's sums, scan and
// expansion never see them.
__global__ void __launch_bounds__(kBlock) driven_bitmap_to_queue(View d, std::int64_t words) {
  const LevelControl& c = *d.control;
  if (c.frontier_is_queue) return;
  const int level = static_cast<int>(c.level);
  bitmap_to_queue_rounds(my_frontier_words(d), words, d.nl, level_queue(d, c.level), &d.counters->selected,
                         [&](std::int64_t v) { return queued_item_degree(d, static_cast<std::uint32_t>(v), level) > 0; });
}

// This rank's queued frontier: the queue, or after a bottom-up level what driven_bitmap_to_queue
// kept of its words.
__device__ __forceinline__ std::int64_t queued_items(const View& d, const LevelControl& c) {
  return c.frontier_is_queue ? c.queue_size : static_cast<std::int64_t>(d.counters->selected);
}

// Item q's edges to expand here: a queued vertex's (queued_item_degree), a listed hub's part
// of its row on this rank.
__device__ __forceinline__ std::int64_t item_degree(const View& d, const std::uint32_t* queue, std::int64_t nq,
                                                    std::int64_t q, int level) {
  if (q < nq) return queued_item_degree(d, queue[q], level);
  const std::uint32_t k = d.hub_list[q - nq];
  return d.hub_offsets[k + 1] - d.hub_offsets[k];
}

// The frontier's degrees and their exclusive scan for a queue whose length only the device
// knows: a small frontier in one block; else each block sums its chunk of the items (this
// kernel), then scans it after the sums of the blocks before it (driven_frontier_scan).
__global__ void __launch_bounds__(kSmallScanThreads) driven_frontier_sums(View d, std::int64_t* degrees,
                                                                         std::int64_t* sums) {
  const LevelControl& c = *d.control;
  const std::int64_t nq = queued_items(d, c), items = nq + frontier_hubs(d, c);
  const int level = static_cast<int>(c.level);
  if (items <= kSmallFrontier) return;
  const std::uint32_t* queue = level_queue(d, c.level);
  const Range chunk = block_range(items, static_cast<int>(gridDim.x), static_cast<int>(blockIdx.x));
  std::int64_t sum = 0;
  for (std::int64_t q = chunk.begin + threadIdx.x; q < chunk.begin + chunk.count; q += blockDim.x) {
    degrees[q] = item_degree(d, queue, nq, q, level);
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
  const std::int64_t nq = queued_items(d, c), items = nq + frontier_hubs(d, c);
  const int level = static_cast<int>(c.level);
  if (items <= kSmallFrontier) {
    if (blockIdx.x == 0) {
      const std::uint32_t* queue = level_queue(d, c.level);
      const std::int64_t total =
          block_scan_range(0, items, 0, [&](std::int64_t q) { return item_degree(d, queue, nq, q, level); }, scan);
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
  top_down_tiles<kDistributed>(d, level_queue(d, c.level), scan, queued_items(d, c), frontier_hubs(d, c),
                               level_queue(d, c.level + 1), static_cast<int>(c.level + 1));
}

// A tiny frontier (LevelPath::top_down_tiny, which guarantees at most kBlock items): every
// block scans the items' degrees into its shared memory, then expands its tiles. One kernel
// of kTinyBlocks blocks instead of a scan kernel and the full grid; the scan is repeated per
// block, a few hundred loads from L2.
using TinyScan = cub::BlockScan<std::int64_t, kBlock>;
static_assert(sizeof(TinyScan::TempStorage) + (kBlock + 1) * sizeof(std::int64_t) <= kTinySharedBytes);

template <bool kDistributed>
__global__ void __launch_bounds__(kBlock) driven_top_down_tiny(View d) {
  const LevelControl& c = *d.control;
  const std::int64_t nq = c.queue_size, nh = frontier_hubs(d, c), items = nq + nh;
  const int level = static_cast<int>(c.level);
  if (items > kBlock) __trap();  // excluded by route_level's test
  using Scan = TinyScan;
  __shared__ typename Scan::TempStorage temp;
  __shared__ std::int64_t scan[kBlock + 1];
  const std::uint32_t* queue = level_queue(d, c.level);
  const std::int64_t q = threadIdx.x;
  std::int64_t before = q < items ? item_degree(d, queue, nq, q, level) : 0, total = 0;
  Scan(temp).ExclusiveSum(before, before, total);
  if (q < items) scan[q] = before;
  if (threadIdx.x == 0) scan[items] = total;
  __syncthreads();
  top_down_tiles<kDistributed>(d, queue, scan, nq, nh, level_queue(d, c.level + 1), static_cast<int>(c.level + 1));
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

// A graph being built: destroyed when it goes out of scope, so a CUDA error part-way through
// building leaves nothing behind (the executable graph keeps what it needs).
class GraphDraft {
 public:
  GraphDraft() { TESSERA_CUDA_CHECK(cudaGraphCreate(&g_, 0)); }
  ~GraphDraft() { (void)cudaGraphDestroy(g_); }
  GraphDraft(const GraphDraft&) = delete;
  GraphDraft& operator=(const GraphDraft&) = delete;
  cudaGraph_t get() const { return g_; }
  // Instantiated for launch from the device too (a kernel's tail launch), and uploaded.
  cudaGraphExec_t instantiate_for_device(cudaStream_t stream) const {
    cudaGraphExec_t exec = nullptr;
    TESSERA_CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec, g_, cudaGraphInstantiateFlagDeviceLaunch));
    const cudaError_t uploaded = cudaGraphUpload(exec, stream);
    if (uploaded != cudaSuccess) {
      (void)cudaGraphExecDestroy(exec);
      TESSERA_CUDA_CHECK(uploaded);
    }
    return exec;
  }

 private:
  cudaGraph_t g_ = nullptr;
};

}  // namespace

void CudaEngine::begin_levels(std::int64_t root, std::int64_t root_degree, Algorithm algorithm,
                               const DirectionPolicy& policy) {
  if (!search_graph_) make_graph();
  begin_levels_kernel<<<1, 64, 0, stream_>>>(view_, root, root_degree, g_.directed_edges, static_cast<int>(algorithm),
                                             policy.alpha, policy.beta, row_words_);
  TESSERA_CUDA_CHECK_LAUNCH();
}

LevelState CudaEngine::level_state() {
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host_control_.data(), control_.data(), sizeof(LevelControl),
                                     cudaMemcpyDeviceToHost, stream_));
  stream_.synchronize();
  const LevelControl& c = *host_control_.data();
  if (c.status == kRunaway) throw std::logic_error("bfs: the device-driven search ran more levels than vertices");
  if (c.launch_error != 0)
    throw std::runtime_error("bfs: the device-driven search could not launch level " + std::to_string(c.level) +
                             "'s graph from the device: " +
                             cudaGetErrorString(static_cast<cudaError_t>(c.launch_error)));
  throw_if_wait_failed(c.status);
  LevelState s;
  s.done = c.done != 0;
  s.level = static_cast<int>(c.level);
  s.top_down_levels = static_cast<int>(c.top_down_levels);
  s.bottom_up_levels = static_cast<int>(c.bottom_up_levels);
  return s;
}

std::vector<LevelClock> CudaEngine::level_clocks() {
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
    c.start = static_cast<double>(s.start) * 1e-6;
    out.push_back(c);
  }
  return out;
}

// ---- the graphs of a device-driven search --------------------------------------------

// The steps of one level's branch, as the host-driven search queues them, but with every
// size and level read from the LevelControl. With peer memory, the branch's share goes to
// table 0 and the level's last share to table 1 (a rank passes the next level's first
// share only after every rank has passed its last one, so no table is overwritten early).
void CudaEngine::queue_top_down_branch(LevelPath path) {
  const std::size_t shared = append_shared_bytes(part_.parts);
  if (path == LevelPath::top_down_tiny) {
    if (part_.parts > 1)
      driven_top_down_tiny<true><<<kTinyBlocks, kBlock, shared, stream_>>>(view_);
    else
      driven_top_down_tiny<false><<<kTinyBlocks, kBlock, shared, stream_>>>(view_);
    TESSERA_CUDA_CHECK_LAUNCH();
    if (window_) queue_claims(kTinyBlocks * kTileItems);  // at most one pair per edge
    return;
  }
  if (path == LevelPath::top_down_from_words) {
    const std::int64_t words = (g_.count + 31) / 32;
    driven_bitmap_to_queue<<<grid((words + kBitmapWords - 1) / kBitmapWords), kBlock, 0, stream_>>>(view_, words);
    TESSERA_CUDA_CHECK_LAUNCH();
  }
  if (path != LevelPath::top_down_small) {  // a short queue's scan needs no sums per block
    driven_frontier_sums<<<scan_blocks_, kSmallScanThreads, 0, stream_>>>(view_, degrees_.data(), chunk_sums_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
  }
  driven_frontier_scan<<<scan_blocks_, kSmallScanThreads, 0, stream_>>>(view_, degrees_.data(), chunk_sums_.data(),
                                                                        scan_.data());
  TESSERA_CUDA_CHECK_LAUNCH();
  if (part_.parts > 1)  // one wave (resident_blocks_per_sm)
    driven_top_down<true><<<sms_ * resident_blocks_per_sm(driven_top_down<true>, shared), kBlock, shared, stream_>>>(
        view_, scan_.data());
  else
    driven_top_down<false><<<sms_ * resident_blocks_per_sm(driven_top_down<false>, shared), kBlock, shared,
                             stream_>>>(view_, scan_.data());
  TESSERA_CUDA_CHECK_LAUNCH();
  if (window_) queue_claims(sms_ * 8);
}

// With peer memory: the share that delivers the pairs, then their claims by `blocks` blocks.
void CudaEngine::queue_claims(int blocks) {
  queue_share(0, false, false, true);
  driven_apply_shared<<<blocks, kBlock, append_shared_bytes(1), stream_>>>(
      view_, reinterpret_cast<const uint2*>(window_->local() + layout_.receive), layout_.slot_pairs, shared_table(0),
      row_words_);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::queue_bottom_up_branch(LevelPath path) {
  const std::int64_t words = local_words32_;
  if (path == LevelPath::bottom_up_from_queue) {
    driven_clear_words<<<grid(words), kBlock, 0, stream_>>>(view_, words);
    TESSERA_CUDA_CHECK_LAUNCH();
    driven_queue_to_bitmap<<<sms_ * 8, kBlock, 0, stream_>>>(view_);
    TESSERA_CUDA_CHECK_LAUNCH();
  }
  if (window_) queue_share(0, true, false, true);
  driven_bottom_up<<<sms_ * 8, kBlock, 0, stream_>>>(view_);
  TESSERA_CUDA_CHECK_LAUNCH();
  driven_bottom_up_long<<<sms_ * 8, kBlock, 0, stream_>>>(view_);
  TESSERA_CUDA_CHECK_LAUNCH();
  driven_next_to_frontier<<<grid(words), kBlock, 0, stream_>>>(view_, words);
  TESSERA_CUDA_CHECK_LAUNCH();
}

// Captures what `queue` launches on the stream into the empty graph g.
template <class Queue>
void CudaEngine::capture_into(cudaGraph_t g, Queue queue) {
  TESSERA_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream_, g, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
  try {
    queue();
  } catch (...) {
    cudaGraph_t ignored = nullptr;
    (void)cudaStreamEndCapture(stream_, &ignored);
    throw;
  }
  TESSERA_CUDA_CHECK(cudaStreamEndCapture(stream_, &g));
}

// One level of branch `path` into the empty graph g: the branch's steps, the level's last
// share and conclude_level (which launches the next level's graph from `levels`).
void CudaEngine::build_level(cudaGraph_t g, LevelPath path, const cudaGraphExec_t* levels) {
  capture_into(g, [&] {
    if (path == LevelPath::bottom_up_from_queue || path == LevelPath::bottom_up) queue_bottom_up_branch(path);
    else queue_top_down_branch(path);
    if (window_) queue_share(1, false, true, true);  // the level's last share carries the hubs it found
    conclude_level<<<1, kConcludeThreads, 0, stream_>>>(view_, window_ ? shared_table(1) : table_.data(), row_words_,
                                                        window_ ? window_->view().status : nullptr, levels);
    TESSERA_CUDA_CHECK_LAUNCH();
  });
}

// The graphs of a search: one per branch, their handles on the device, and the search's
// start, which routes the first level.
void CudaEngine::make_graph() {
  stream_.synchronize();  // captures begin on an idle stream
  for (cudaGraphExec_t& level : level_graphs_) {  // left by an attempt that failed part-way
    if (level) (void)cudaGraphExecDestroy(level);
    level = nullptr;
  }
  level_graph_table_ = DeviceBuffer<cudaGraphExec_t>(level_graphs_.size());
  for (std::size_t k = 0; k < level_graphs_.size(); ++k) {
    GraphDraft level;
    build_level(level.get(), static_cast<LevelPath>(k), level_graph_table_.data());
    level_graphs_[k] = level.instantiate_for_device(stream_);
  }
  level_graph_table_.upload(std::span<const cudaGraphExec_t>(level_graphs_.data(), level_graphs_.size()));
  GraphDraft search;
  capture_into(search.get(), [&] {
    route_first_level<<<1, 1, 0, stream_>>>(view_, level_graph_table_.data());
    TESSERA_CUDA_CHECK_LAUNCH();
  });
  search_graph_ = search.instantiate_for_device(stream_);
}

}  // namespace tessera::bfs::gpu
