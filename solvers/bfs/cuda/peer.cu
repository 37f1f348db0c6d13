// The kernels of the device-initiated exchanges (peer.cuh) and their launchers (launch.cuh).
#include "comm/peer_sync.cuh"
#include "comm/peer_window.hpp"
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/launch.cuh"
#include "solvers/bfs/cuda/peer.cuh"

namespace tessera::bfs::gpu {
namespace {

// This rank's row into every rank's copy of table `t` (its own included); with frontier words
// [word_begin, word_begin + word_count) (64-bit), those into every other rank's bitmap first.
// The last block then copies the row, signals and waits for every rank's share (finish_share). The pairs that top_down stored
// into other ranks' memory need no fence of their own: that kernel happens before this one in
// stream order, and the signal's release covers what happened before it. The sequence numbers
// count the shares on the device (`shares`), so that a share queued in a graph, or skipped by
// a device-driven search that has ended (on every rank alike), keeps the ranks' numbers equal
// without the host.
__global__ void __launch_bounds__(kBlock) share_kernel(RowShare share, std::size_t frontier, std::int64_t word_begin,
                                                       std::int64_t word_count) {
  const comm::PeerView& pv = share.pv;
  if (blockIdx.x == 0 && threadIdx.x == 0)  // the frontier words' stores count as the share's
    if (LevelStamp* s = share.stamps.at()) s->share_in[share.stamps.which] = comm::peer::global_nanoseconds();
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const ull* mine = reinterpret_cast<const ull*>(pv.base[pv.me] + frontier) + word_begin;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < word_count; i += stride) {
    const ull w = mine[i];
    for (int r = 0; r < pv.ranks; ++r)
      if (r != pv.me) reinterpret_cast<ull*>(pv.base[r] + frontier)[word_begin + i] = w;
  }
  finish_share(share);
}

__global__ void __launch_bounds__(kBlock) apply_shared_kernel(View d, const uint2* pairs, std::int64_t slot_pairs,
                                                              const ull* table, int row_words,
                                                              std::uint32_t* next_queue, int next_level) {
  claim_shared(d, pairs, slot_pairs, table, row_words, next_queue, next_level);
}

// Stores `pairs` zero pairs at the start of every other rank's receive area (slots a level
// overwrites before any rank reads them): traffic on every NVLink link before a search
// (PeerExchange::wake_peer_links).
__global__ void wake_links_kernel(View d, std::int64_t pairs) {
  for (int r = 0; r < d.parts; ++r) {
    if (r == d.me) continue;
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < pairs;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
      d.dest_pairs[r][i] = make_uint2(0u, 0u);
  }
}

}  // namespace

void launch_share(const Launch& l, const RowShare& share, std::size_t frontier, std::int64_t word_begin,
                  std::int64_t word_count) {
  share_kernel<<<l.grid, l.block, l.shared, l.stream>>>(share, frontier, word_begin, word_count);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_apply_shared(const Launch& l, const View& d, const uint2* pairs, std::int64_t slot_pairs, const ull* table,
                         int row_words, std::uint32_t* next_queue, int next_level) {
  apply_shared_kernel<<<l.grid, l.block, l.shared, l.stream>>>(
      d, pairs, slot_pairs, table, row_words, next_queue, next_level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_wake_links(const Launch& l, const View& d, std::int64_t pairs) {
  wake_links_kernel<<<l.grid, l.block, l.shared, l.stream>>>(d, pairs);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace tessera::bfs::gpu
