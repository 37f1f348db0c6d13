// The top-down kernels (top_down.cuh) and their launchers (launch.cuh).
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/launch.cuh"
#include "solvers/bfs/cuda/top_down.cuh"

namespace tessera::bfs::gpu {
namespace {

__global__ void frontier_degrees(View d, const std::uint32_t* queue, std::int64_t nq, int level,
                                 std::int64_t* degrees) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i <= nq;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    degrees[i] = i < nq ? expanded_degree(d, queue, i, level) : 0;
  }
}

__global__ void __launch_bounds__(kSmallScanThreads) small_frontier_scan(View d, const std::uint32_t* queue,
                                                                       std::int64_t nq, int level,
                                                                       std::int64_t* scan, int row_words) {
  const std::int64_t total =
      block_scan_range(0, nq, 0, [&](std::int64_t q) { return expanded_degree(d, queue, q, level); }, scan);
  if (threadIdx.x == 0) scan[nq] = total;
  clear_row_and_counters(d, row_words);
}

template <bool kDistributed>
__global__ void __launch_bounds__(kBlock) top_down_kernel(View d, const std::uint32_t* queue, const std::int64_t* scan,
                                                          std::int64_t nq, std::uint32_t* next_queue, int next_level) {
  top_down_tiles<kDistributed>(d, queue, scan, nq, 0, next_queue, next_level);
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

}  // namespace

void launch_frontier_degrees(const Launch& l, const View& d, const std::uint32_t* queue, std::int64_t nq, int level,
                             std::int64_t* degrees) {
  frontier_degrees<<<l.grid, l.block, l.shared, l.stream>>>(d, queue, nq, level, degrees);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_small_frontier_scan(const Launch& l, const View& d, const std::uint32_t* queue, std::int64_t nq,
                                int level, std::int64_t* scan, int row_words) {
  small_frontier_scan<<<l.grid, l.block, l.shared, l.stream>>>(d, queue, nq, level, scan, row_words);
  TESSERA_CUDA_CHECK_LAUNCH();
}

int top_down_blocks_per_sm(bool distributed, std::size_t shared) {
  return distributed ? resident_blocks_per_sm(top_down_kernel<true>, shared)
                     : resident_blocks_per_sm(top_down_kernel<false>, shared);
}

void launch_top_down(const Launch& l, bool distributed, const View& d, const std::uint32_t* queue,
                     const std::int64_t* scan, std::int64_t nq, std::uint32_t* next_queue, int next_level) {
  if (distributed)
    top_down_kernel<true><<<l.grid, l.block, l.shared, l.stream>>>(d, queue, scan, nq, next_queue, next_level);
  else
    top_down_kernel<false><<<l.grid, l.block, l.shared, l.stream>>>(d, queue, scan, nq, next_queue, next_level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_apply_received(const Launch& l, const View& d, const uint2* pairs, std::int64_t count,
                           std::uint32_t* next_queue, int next_level) {
  apply_received_kernel<<<l.grid, l.block, l.shared, l.stream>>>(d, pairs, count, next_queue, next_level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_apply_eager(const Launch& l, const View& d, const uint2* pairs, const ull* table, std::int64_t cap, int me,
                        int row_words, std::uint32_t* next_queue, int next_level) {
  apply_eager_kernel<<<l.grid, l.block, l.shared, l.stream>>>(
      d, pairs, table, cap, me, row_words, next_queue, next_level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace tessera::bfs::gpu
