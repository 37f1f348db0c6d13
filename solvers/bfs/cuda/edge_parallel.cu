// The seed's edge-parallel step (backend.hpp: edge_parallel, apply_received_plain) and its
// launchers (launch.cuh).
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/launch.cuh"

namespace tessera::bfs::gpu {
namespace {

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

}  // namespace

void launch_row_sources(const Launch& l, const View& d, std::uint32_t* sources) {
  row_sources<<<l.grid, l.block, l.shared, l.stream>>>(d, sources);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_edge_parallel(const Launch& l, const View& d, std::int64_t entries, int level) {
  edge_parallel_kernel<<<l.grid, l.block, l.shared, l.stream>>>(d, entries, level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_apply_received_plain(const Launch& l, const View& d, const uint2* pairs, std::int64_t count, int level) {
  apply_received_plain_kernel<<<l.grid, l.block, l.shared, l.stream>>>(d, pairs, count, level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace tessera::bfs::gpu
