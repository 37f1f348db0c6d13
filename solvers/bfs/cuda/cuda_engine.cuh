#pragma once
// The cuda backend (backend.hpp): the host class that owns the device memory and queues each
// step's kernels; it implements the core steps and both optional parts (PeerExchange,
// DeviceLoop). Where things are:
//   common.cuh                    the View the kernels take, counters, shared device helpers
//   launch.cuh                    the launchers of the kernel families below
//   top_down.{cuh,cu}             top-down (load-balanced over edges), received and eager pairs
//   bottom_up.{cuh,cu}            bottom-up, frontier queue <-> bitmap
//   peer.{cuh,cu}                 device-initiated exchanges through peer memory (shares)
//   edge_parallel.cu              the seed's edge-parallel step
//   bookkeeping.cu                clearing a step, the end of a search, the root, the reached count
//   validation.cu                 the Graph500 checks
//   device_loop.{cuh,cu}          the GPU-run level loop (LevelControl, the CUDA graph of a search)
//   cuda_engine.cu               this class: set-up and the steps' dispatch
//
// The level steps only queue work: what they found goes to this rank's row of the level
// table (device memory), which the search allgathers on the transport and copies to the
// host once per exchange (backend.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "comm/peer_window.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/stream.hpp"
#include "solvers/bfs/backend.hpp"
#include "solvers/bfs/cuda/common.cuh"
#include "solvers/bfs/cuda/device_loop.cuh"
#include "solvers/bfs/cuda/peer.cuh"
#include "solvers/bfs/delegates.hpp"

namespace tessera::bfs::gpu {

class CudaEngine final : public SearchBackend, public PeerExchange, public DeviceLoop {
 public:
  CudaEngine(const LocalGraph& g, std::int64_t eager, const Delegates& delegates);
  ~CudaEngine() override;
  CudaEngine(const CudaEngine&) = delete;
  CudaEngine& operator=(const CudaEngine&) = delete;

  stream_t stream() const override { return stream_.get(); }
  void synchronize() override { stream_.synchronize(); }

  void reset() override;
  void reset_for_claims() override;
  void finish_search() override;
  void reset_bitmaps();
  void start(std::int64_t root) override;
  void top_down(int level) override;
  void apply_received(int level, std::int64_t count) override;
  void apply_eager(int level) override;
  void swap_queues(std::int64_t count) override {
    std::swap(queue_, next_queue_);
    queue_size_ = count;
  }
  void queue_to_bitmap() override;
  void bottom_up(int level) override;
  void bitmap_to_queue(std::int64_t count) override;
  bool edge_parallel(int level) override;
  bool apply_received_plain(int level, std::int64_t count) override;

  std::byte* level_table() override { return reinterpret_cast<std::byte*>(table_.data()); }
  void fetch_level_table(int slot) override;
  std::span<const std::int64_t> wait_level_table(int slot) override;

  std::size_t pair_bytes() const override { return sizeof(uint2); }
  std::byte* send_pairs() override { return reinterpret_cast<std::byte*>(send_.data()); }
  std::byte* receive_pairs() override { return reinterpret_cast<std::byte*>(recv_.data()); }
  std::int64_t receive_capacity() const override { return part_.parts > 1 ? static_cast<std::int64_t>(recv_.size()) : 0; }
  std::int64_t eager_capacity() const override { return part_.parts > 1 ? eager_ : 0; }
  std::byte* eager_receive() override { return reinterpret_cast<std::byte*>(eager_recv_.data()); }
  std::byte* frontier_bitmap() override { return reinterpret_cast<std::byte*>(frontier_words_); }
  std::byte* parent_global() override { return reinterpret_cast<std::byte*>(parent_.data()); }
  std::byte* level_global() override { return reinterpret_cast<std::byte*>(level_.data()); }

  Reached reached() override;
  void download_window(std::span<std::int64_t> parent, std::span<std::int32_t> level) override;
  void download_global(std::span<std::int64_t> parent, std::span<std::int32_t> level) override;
  void upload_window(std::span<const std::int64_t> parent, std::span<const std::int32_t> level) override;
  CheckCounts check(std::int64_t root) override;

  // The optional parts: this class. The GPU runs the level loop on one rank, or with peer memory.
  PeerExchange* peer_exchange() override { return this; }
  DeviceLoop* device_loop() override { return part_.parts == 1 || window_ != nullptr ? this : nullptr; }

  // PeerExchange.
  bool use_peer_memory(comm::Context& ctx, std::string* why) override;
  void share(bool frontier) override;
  void apply_shared(int level, std::int64_t bound) override;
  void wake_peer_links() override;

  // DeviceLoop (device_loop.cu).
  void begin_levels(std::int64_t root, std::int64_t root_degree, Algorithm algorithm,
                    const DirectionPolicy& policy) override;
  void queue_levels() override { TESSERA_CUDA_CHECK(cudaGraphLaunch(search_graph_, stream_)); }
  LevelState level_state() override;
  std::vector<LevelClock> level_clocks() override;

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

  void queue_share(int t, bool frontier, bool hubs, bool stamped);
  void upload_delegates(const Delegates& dl);

  // The graphs of a device-driven search (device_loop.cu).
  void queue_top_down_branch(LevelPath path);
  void queue_bottom_up_branch(LevelPath path);
  void queue_claims(int blocks);
  template <class Queue>
  void capture_into(cudaGraph_t g, Queue queue);
  void build_level(cudaGraph_t g, LevelPath path, const cudaGraphExec_t* levels);
  void make_graph();

  void clear(bool whole_row, bool counters);
  Counters read_counters();
  void upload_columns();

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
  // the frontier scan's per-block sums, the search's graphs (made at the first search) and the
  // levels' clock readings.
  DeviceBuffer<LevelControl> control_;
  PinnedBuffer<LevelControl> host_control_;
  DeviceBuffer<ull> shares_on_device_;
  DeviceBuffer<std::int64_t> chunk_sums_;
  int scan_blocks_ = 1;
  // A host-driven top-down level's grid: one wave (resident_blocks_per_sm; the device loop
  // sizes its own the same way). The kernel's registers let an SM hold 5 of its blocks, not
  // 8: a grid of 8 per SM ran its last 3 as a second wave on 60% of the GPU (Nsight Compute,
  // one H200, 2026-11-29).
  int top_down_grid_ = 1;
  cudaGraphExec_t search_graph_ = nullptr;  // routes the first level
  std::array<cudaGraphExec_t, static_cast<std::size_t>(LevelPath::count)> level_graphs_{};  // one per LevelPath
  DeviceBuffer<cudaGraphExec_t> level_graph_table_;  // their handles, for the kernels that launch them
  DeviceBuffer<LevelStamp> stamps_;  // View::stamps
  DeviceBuffer<unsigned char> cub_scratch_;
  // Delegated hubs (delegates.hpp): their count, degree (INT64_MAX: none), this rank's, and
  // each rank's first word of the hub bitmap (ranks + 1: the last is its size).
  std::int64_t hubs_ = 0, hub_degree_ = INT64_MAX, my_first_hub_ = 0, my_hubs_ = 0;
  std::vector<std::int64_t> hub_rank_word_host_;
  DeviceBuffer<std::uint32_t> hub_ids_, hub_targets_, hub_list_, hub_settled_;
  DeviceBuffer<std::int64_t> hub_rank_first_, hub_rank_word_, hub_offsets_;
  View view_{};
};

}  // namespace tessera::bfs::gpu
