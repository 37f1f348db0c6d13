// The kernels of the device-initiated exchanges (peer.cuh) and their launchers (launch.cuh).
#include "comm/peer_sync.cuh"
#include "comm/peer_window.hpp"
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/launch.cuh"
#include "solvers/bfs/cuda/peer.cuh"

namespace tessera::bfs::gpu {
namespace {

// This rank's words of the hub bitmap into every rank's (a warp's ballot per group of 32
// hubs), and their count into the row's kRowHubs. A group whose hubs are all reached is settled: its bits
// stay zero for the rest of the search, unread. Kronecker searches reach nearly every hub
// within three levels, so the later levels pass zeros.
__device__ __forceinline__ void share_hub_bits(const comm::PeerView& pv, const HubShare& hubs, ull* row) {
  const long long next = *hubs.level_now + 1;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t lanes = (hubs.count + 31) / 32 * 32;  // whole warps
  const bool leader = (threadIdx.x & 31) == 0;
  ull reached = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < lanes; i += stride) {
    const std::int64_t group = i / 32;
    std::uint32_t bits = 0;
    if (!hubs.settled[group]) {  // the same for the warp
      bool seen = false, now = false;
      if (i < hubs.count) {
        const std::uint32_t v = hubs.ids[i] - static_cast<std::uint32_t>(hubs.begin);
        seen = test_bit(hubs.visited, v);
        now = seen && hubs.level[hubs.begin + v] == next;
      }
      bits = __ballot_sync(kFull, now);
      const bool all_seen = __ballot_sync(kFull, seen) == __ballot_sync(kFull, i < hubs.count);
      if (leader && all_seen) hubs.settled[group] = 1;
    }
    if (leader) {
      reached += static_cast<ull>(__popc(bits));
      for (int r = 0; r < pv.ranks; ++r)  // 32-bit halves of the 64-bit words (little-endian)
        reinterpret_cast<std::uint32_t*>(pv.base[r] + hubs.offset)[hubs.word_begin * 2 + group] = bits;
    }
  }
  if (leader && reached) atomicAdd(row + kRowHubs, reached);
}

// This rank's row into every rank's copy of table `t` (its own included); with frontier words
// [word_begin, word_begin + word_count) (64-bit), those into every other rank's bitmap first,
// and with hubs, its words of the hub bitmap into every rank's and their count into the row
// (share_hub_bits). Block 0 copies the row first; the last block stores the hub count, final
// only then, over block 0's copy of it, signals and waits for every rank's share
// (peer_sync.cuh) and writes the wait's status after the table, where the host copy finds it.
// The pairs that top_down stored into other ranks' memory need no fence of their own: that
// kernel happens before this one in stream order, and the signal's release covers what
// happened before it. The sequence numbers count the shares on the device (`shares`), so that
// a share queued in a graph, or skipped by a device-driven search that has ended (on every
// rank alike), keeps the ranks' numbers equal without the host.
__global__ void __launch_bounds__(kBlock) share_kernel(comm::PeerView pv, ull* row, int row_words,
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
  if (hubs.count > 0) share_hub_bits(pv, hubs, row);
  if (comm::peer::last_block_done(pv)) {
    LevelStamp* stamp = stamps.at();
    if (hubs.count > 0) {  // every block has counted its hubs now: the final count replaces block 0's copy
      const ull reached = __ldcg(row + kRowHubs);
      for (int r = 0; r < pv.ranks; ++r)
        reinterpret_cast<ull*>(pv.base[r] + table)[static_cast<std::int64_t>(pv.me) * row_words + kRowHubs] = reached;
    }
    const ull sequence = ++*shares;
    comm::peer::signal(pv, sequence);
    if (stamp) stamp->share_signalled[stamps.which] = comm::peer::global_nanoseconds();
    comm::peer::wait(pv, sequence);
    reinterpret_cast<ull*>(pv.base[pv.me] + table)[static_cast<std::int64_t>(pv.ranks) * row_words] = *pv.status;
    if (stamp) stamp->share_out[stamps.which] = comm::peer::global_nanoseconds();
  }
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

void launch_share(const Launch& l, const comm::PeerView& pv, ull* row, int row_words, std::size_t table,
                  std::size_t frontier, std::int64_t word_begin, std::int64_t word_count, const HubShare& hubs,
                  ull* shares, const ShareStamps& stamps) {
  share_kernel<<<l.grid, l.block, l.shared, l.stream>>>(
      pv, row, row_words, table, frontier, word_begin, word_count, hubs, shares, stamps);
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
