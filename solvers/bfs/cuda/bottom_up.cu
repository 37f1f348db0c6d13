// The bottom-up kernels (bottom_up.cuh) and their launchers (launch.cuh).
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/bottom_up.cuh"
#include "solvers/bfs/cuda/launch.cuh"

namespace tessera::bfs::gpu {
namespace {

__global__ void queue_to_bitmap_kernel(const std::uint32_t* queue, std::int64_t nq, std::uint32_t* words) {
  set_queued_bits(queue, nq, words);
}

__global__ void __launch_bounds__(kBlock) bottom_up_kernel(View d, int next_level) { bottom_up_words(d, next_level); }

__global__ void __launch_bounds__(kBlock) bottom_up_long_kernel(View d, int next_level) {
  bottom_up_long_rows(d, next_level);
}

__global__ void __launch_bounds__(kBlock) bitmap_to_queue_kernel(const std::uint32_t* words, std::int64_t nwords,
                                                                 std::int64_t nl, std::uint32_t* queue, ull* size) {
  bitmap_to_queue_rounds(words, nwords, nl, queue, size);
}

}  // namespace

void launch_queue_to_bitmap(const Launch& l, const std::uint32_t* queue, std::int64_t nq, std::uint32_t* words) {
  queue_to_bitmap_kernel<<<l.grid, l.block, l.shared, l.stream>>>(queue, nq, words);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_bottom_up(const Launch& l, const View& d, int next_level) {
  bottom_up_kernel<<<l.grid, l.block, l.shared, l.stream>>>(d, next_level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_bottom_up_long(const Launch& l, const View& d, int next_level) {
  bottom_up_long_kernel<<<l.grid, l.block, l.shared, l.stream>>>(d, next_level);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_bitmap_to_queue(const Launch& l, const std::uint32_t* words, std::int64_t nwords, std::int64_t nl,
                            std::uint32_t* queue, ull* size) {
  bitmap_to_queue_kernel<<<l.grid, l.block, l.shared, l.stream>>>(words, nwords, nl, queue, size);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace tessera::bfs::gpu
