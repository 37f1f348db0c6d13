#pragma once
// The launchers of the cuda backend's kernels, one .cu per kernel family (top_down.cu,
// bottom_up.cu, peer.cu, edge_parallel.cu, bookkeeping.cu, validation.cu), for the host class
// (cuda_engine.cu). Each queues its kernel with the host class's configuration (Launch) and
// checks the launch. Without relocatable device code a kernel, and a kernel template above all,
// is launched from the translation unit that defines it: hence launchers rather than kernel
// declarations. The GPU-run level loop's kernels are launched (captured) in device_loop.cu.
#include <cstddef>
#include <cstdint>

#include "comm/peer_window.hpp"
#include "core/stream.hpp"
#include "solvers/bfs/cuda/common.cuh"
#include "solvers/bfs/cuda/peer.cuh"

namespace tessera::bfs::gpu {

// A kernel's <<<grid, block, dynamic shared memory, stream>>>, as the host class chooses them.
struct Launch {
  int grid;
  int block;
  std::size_t shared;
  stream_t stream;
};

// top_down.cu
void launch_frontier_degrees(const Launch& l, const View& d, const std::uint32_t* queue, std::int64_t nq, int level,
                             std::int64_t* degrees);
void launch_small_frontier_scan(const Launch& l, const View& d, const std::uint32_t* queue, std::int64_t nq,
                                int level, std::int64_t* scan, int row_words);
// resident_blocks_per_sm of the top-down kernel: a top-down level's grid is that many per SM.
int top_down_blocks_per_sm(bool distributed, std::size_t shared);
void launch_top_down(const Launch& l, bool distributed, const View& d, const std::uint32_t* queue,
                     const std::int64_t* scan, std::int64_t nq, std::uint32_t* next_queue, int next_level);
void launch_apply_received(const Launch& l, const View& d, const uint2* pairs, std::int64_t count,
                           std::uint32_t* next_queue, int next_level);
void launch_apply_eager(const Launch& l, const View& d, const uint2* pairs, const ull* table, std::int64_t cap, int me,
                        int row_words, std::uint32_t* next_queue, int next_level);

// bottom_up.cu
void launch_queue_to_bitmap(const Launch& l, const std::uint32_t* queue, std::int64_t nq, std::uint32_t* words);
void launch_bottom_up(const Launch& l, const View& d, int next_level);
void launch_bottom_up_long(const Launch& l, const View& d, int next_level);
void launch_bitmap_to_queue(const Launch& l, const std::uint32_t* words, std::int64_t nwords, std::int64_t nl,
                            std::uint32_t* queue, ull* size);

// peer.cu
void launch_share(const Launch& l, const comm::PeerView& pv, ull* row, int row_words, std::size_t table,
                  std::size_t frontier, std::int64_t word_begin, std::int64_t word_count, const HubShare& hubs,
                  ull* shares, const ShareStamps& stamps);
void launch_apply_shared(const Launch& l, const View& d, const uint2* pairs, std::int64_t slot_pairs, const ull* table,
                         int row_words, std::uint32_t* next_queue, int next_level);
void launch_wake_links(const Launch& l, const View& d, std::int64_t pairs);

// edge_parallel.cu
void launch_row_sources(const Launch& l, const View& d, std::uint32_t* sources);
void launch_edge_parallel(const Launch& l, const View& d, std::int64_t entries, int level);
void launch_apply_received_plain(const Launch& l, const View& d, const uint2* pairs, std::int64_t count, int level);

// bookkeeping.cu
void launch_clear_step(const Launch& l, const View& d, int row_words, bool counters);
void launch_clear_stale_entries(const Launch& l, const View& d, std::uint32_t* reached_before);
void launch_mark_root(const Launch& l, const View& d, std::uint32_t local, std::uint32_t* queue);
void launch_count_reached(const Launch& l, const View& d);

// validation.cu
void launch_first_ancestors(const Launch& l, const std::int64_t* parent, std::int64_t n, std::int64_t root,
                            std::int64_t* anc);
void launch_jump(const Launch& l, const std::int64_t* anc, std::int64_t n, std::int64_t* next, Counters* c);
void launch_check_vertices(const Launch& l, const View& d, std::int64_t root, const std::int64_t* anc);
void launch_check_edges(const Launch& l, const View& d);

}  // namespace tessera::bfs::gpu
