// The bookkeeping kernels (clearing a step, the end of a search, the root, the reached count)
// and their launchers (launch.cuh).
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/launch.cuh"

namespace tessera::bfs::gpu {
namespace {

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

}  // namespace

void launch_clear_step(const Launch& l, const View& d, int row_words, bool counters) {
  clear_step<<<l.grid, l.block, l.shared, l.stream>>>(d, row_words, counters);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_clear_stale_entries(const Launch& l, const View& d, std::uint32_t* reached_before) {
  clear_stale_entries<<<l.grid, l.block, l.shared, l.stream>>>(d, reached_before);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_mark_root(const Launch& l, const View& d, std::uint32_t local, std::uint32_t* queue) {
  mark_root<<<l.grid, l.block, l.shared, l.stream>>>(d, local, queue);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_count_reached(const Launch& l, const View& d) {
  count_reached<<<l.grid, l.block, l.shared, l.stream>>>(d);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace tessera::bfs::gpu
