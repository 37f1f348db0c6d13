// The cuda backend's host class (cuda_engine.cuh): it sets up the device memory and queues
// the kernels of each step through their launchers (launch.cuh); the GPU-run level loop's part
// is in device_loop.cu.
#include <cub/cub.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <stdexcept>
#include <vector>

#include "comm/errors.hpp"
#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "solvers/bfs/cuda/bottom_up.cuh"
#include "solvers/bfs/cuda/cuda_engine.cuh"
#include "solvers/bfs/cuda/launch.cuh"
#include "solvers/bfs/cuda/top_down.cuh"
#include "solvers/bfs/validate_rules.hpp"

namespace tessera::bfs::gpu {

CudaEngine::CudaEngine(const LocalGraph& g, std::int64_t eager, const Delegates& delegates)
    : g_(g), part_(g.partition), eager_(eager) {
  if (g.vertices() > (std::int64_t{1} << 32) - 1)
    throw InputError("the cuda BFS stores vertex ids in 32 bits: a graph of " + std::to_string(g.vertices()) +
                     " vertices needs the cpu backend");
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t n = g.vertices(), nl = g.count, p = part_.parts;
  local_words32_ = 2 * ((nl + 63) / 64);
  global_words32_ = 2 * part_.words();

  offsets_ = DeviceBuffer<std::int64_t>(g.offsets.size());
  offsets_.upload(std::span<const std::int64_t>(g.offsets.data(), g.offsets.size()));
  columns_ = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(g.columns.size(), 1));
  upload_columns();
  input_degree_ = DeviceBuffer<std::int64_t>(std::max<std::int64_t>(nl, 1));
  if (nl > 0) copy_bytes(input_degree_.data(), g.input_degree.data(), nl * sizeof(std::int64_t));

  parent_ = DeviceBuffer<std::int64_t>(std::max<std::int64_t>(n, 1));
  level_ = DeviceBuffer<std::int32_t>(std::max<std::int64_t>(n, 1));
  fill_device_bytes(parent_.data(), 0xFF, parent_.bytes());
  fill_device_bytes(level_.data(), 0xFF, level_.bytes());
  visited_ = zeroed<std::uint32_t>(local_words32_);
  reached_before_ = zeroed<std::uint32_t>(local_words32_);
  next_ = zeroed<std::uint32_t>(local_words32_);
  frontier_ = zeroed<std::uint32_t>(global_words32_);
  frontier_words_ = frontier_.data();
  sent_ = zeroed<std::uint32_t>(p > 1 ? global_words32_ : 1);
  queue_ = DeviceBuffer<std::uint32_t>(std::max<std::int64_t>(nl, 1));
  next_queue_ = DeviceBuffer<std::uint32_t>(std::max<std::int64_t>(nl, 1));
  long_list_ = DeviceBuffer<std::uint32_t>(std::max<std::int64_t>(nl, 1));
  upload_delegates(delegates);
  degrees_ = DeviceBuffer<std::int64_t>(nl + hubs_ + 1);  // the frontier's items: queue, then hubs
  scan_ = DeviceBuffer<std::int64_t>(nl + hubs_ + 1);
  if (p > 1) {
    send_ = zeroed<uint2>(n + eager_);  // eager messages may carry unwritten slots: never uninitialised bytes
    recv_ = DeviceBuffer<uint2>(std::max<std::int64_t>(nl * (p - 1), 1));
    eager_recv_ = DeviceBuffer<uint2>(std::max<std::int64_t>(eager_ * (p - 1), 1));
  }
  // The top-down kernels' staging without opting in to more than 48 KiB, beside what the tiny
  // frontier's kernel declares itself.
  constexpr int kMostRanks = static_cast<int>((48 * 1024 - kTinySharedBytes) / append_shared_bytes(1));
  if (p > kMostRanks)
    throw InputError("the cuda BFS runs on at most " + std::to_string(kMostRanks) + " ranks (here: " +
                     std::to_string(p) + ")");
  // Pairs for rank r go to its send region (first pair index: its first vertex).
  std::vector<uint2*> dest(static_cast<std::size_t>(p), nullptr);
  if (p > 1)
    for (int r = 0; r < p; ++r) dest[r] = r == g.rank ? nullptr : send_.data() + part_.range(r).begin;
  dest_pairs_ = DeviceBuffer<uint2*>(dest.size());
  dest_pairs_.upload(std::span<uint2* const>(dest.data(), dest.size()));
  row_words_ = static_cast<int>(level_row_size(part_.parts));
  table_ = zeroed<ull>(row_words_ * p);
  for (int slot = 0; slot < 2; ++slot) {
    host_table_[slot] = PinnedBuffer<ull>(static_cast<std::size_t>(row_words_ * p + 1));  // + a shared table's status
    table_copy_[slot].assign(static_cast<std::size_t>(row_words_ * p), 0);
    TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&table_copied_[slot], cudaEventDisableTiming));
  }
  counters_ = DeviceBuffer<Counters>(1);
  host_counters_ = PinnedBuffer<Counters>(1);
  shares_on_device_ = zeroed<ull>(1);
  control_ = DeviceBuffer<LevelControl>(1);
  stamps_ = zeroed<LevelStamp>(kStampedLevels);
  host_control_ = PinnedBuffer<LevelControl>(1);
  *host_control_.data() = LevelControl{};
  host_control_.data()->level = -1;  // level_clocks() before any GPU-run search: no levels
  scan_blocks_ = 2 * sms_;
  top_down_grid_ = sms_ * top_down_blocks_per_sm(p > 1, append_shared_bytes(p));
  chunk_sums_ = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(scan_blocks_));

  // CUB scratch for the largest scan of frontier degrees.
  std::size_t scan_bytes = 0;
  TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, degrees_.data(), scan_.data(), nl + 1));
  cub_scratch_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(scan_bytes, 1));

  view_.offsets = offsets_.data();
  view_.columns = columns_.data();
  view_.input_degree = input_degree_.data();
  view_.sources = nullptr;
  view_.begin = g.begin;
  view_.nl = nl;
  view_.n = n;
  view_.words64 = part_.words();
  view_.parts = part_.parts;
  view_.me = g.rank;
  view_.parent = parent_.data();
  view_.level = level_.data();
  view_.visited = visited_.data();
  view_.frontier = frontier_words_;
  view_.next = next_.data();
  view_.sent = sent_.data();
  view_.long_list = long_list_.data();
  view_.dest_pairs = dest_pairs_.data();
  view_.row = table_.data() + static_cast<std::int64_t>(row_words_) * g.rank;
  view_.counters = counters_.data();
  view_.control = control_.data();
  view_.stamps = stamps_.data();
  view_.queues[0] = queue_.data();
  view_.queues[1] = next_queue_.data();
  view_.hub_degree = INT64_MAX;  // until use_peer_memory gives the hub bitmap a place
  view_.hub_ids = hub_ids_.data();
  view_.hub_rank_first = hub_rank_first_.data();
  view_.hub_rank_word = hub_rank_word_.data();
  view_.hub_offsets = hub_offsets_.data();
  view_.hub_targets = hub_targets_.data();
  view_.hub_words = nullptr;
  view_.hub_list = hub_list_.data();
  view_.hub_settled = hub_settled_.data();
  TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
}

CudaEngine::~CudaEngine() {
  for (cudaEvent_t e : table_copied_)
    if (e) (void)cudaEventDestroy(e);
  if (search_graph_) (void)cudaGraphExecDestroy(search_graph_);
  for (cudaGraphExec_t level : level_graphs_)
    if (level) (void)cudaGraphExecDestroy(level);
}

void CudaEngine::reset() {
  const std::int64_t nl = g_.count;
  if (nl > 0) {
    TESSERA_CUDA_CHECK(cudaMemsetAsync(parent_.data() + g_.begin, 0xFF, nl * sizeof(std::int64_t), stream_));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(level_.data() + g_.begin, 0xFF, nl * sizeof(std::int32_t), stream_));
  }
  TESSERA_CUDA_CHECK(cudaMemsetAsync(reached_before_.data(), 0, reached_before_.bytes(), stream_));
  windows_tracked_ = true;
  reset_bitmaps();
}

// Rewriting the windows costs 12 bytes per vertex (0.2 ms of a 3.4 ms search at scale 26 on
// one H200); clearing what the last tree left outside the new one reads two bitmaps.
void CudaEngine::reset_for_claims() {
  if (!windows_tracked_) return reset();
  reset_bitmaps();
}

void CudaEngine::finish_search() {
  if (!windows_tracked_ || g_.count == 0) return;
  launch_clear_stale_entries({grid((g_.count + 31) / 32), kBlock, 0, stream_}, view_, reached_before_.data());
}

void CudaEngine::reset_bitmaps() {
  TESSERA_CUDA_CHECK(cudaMemsetAsync(visited_.data(), 0, visited_.bytes(), stream_));
  if (part_.parts > 1) TESSERA_CUDA_CHECK(cudaMemsetAsync(sent_.data(), 0, sent_.bytes(), stream_));
  queue_size_ = 0;
}

void CudaEngine::start(std::int64_t root) {
  if (!g_.owns(root)) return;
  launch_mark_root({1, 1, 0, stream_}, view_, static_cast<std::uint32_t>(root - g_.begin), queue_.data());
  queue_size_ = 1;
}

void CudaEngine::top_down(int level) {
  const std::int64_t nq = queue_size_;
  if (nq > 0 && nq <= kSmallFrontier) {
    launch_small_frontier_scan({1, kSmallScanThreads, 0, stream_}, view_, queue_.data(), nq, level, scan_.data(),
                               row_words_);
  } else {
    clear(true, true);
  }
  if (nq > kSmallFrontier) {
    launch_frontier_degrees({grid(nq + 1), kBlock, 0, stream_}, view_, queue_.data(), nq, level, degrees_.data());
    std::size_t bytes = cub_scratch_.size();
    TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_scratch_.data(), bytes, degrees_.data(), scan_.data(),
                                                     nq + 1, stream_.get()));
  }
  if (nq > 0) {
    const std::size_t shared = append_shared_bytes(part_.parts);
    launch_top_down({top_down_grid_, kBlock, shared, stream_}, part_.parts > 1, view_, queue_.data(), scan_.data(), nq,
                    next_queue_.data(), level + 1);
  }
}

void CudaEngine::apply_received(int level, std::int64_t count) {
  if (count > 0) {  // adds to the row after apply_eager's claims; the next queue keeps growing
    launch_apply_received({grid(count), kBlock, append_shared_bytes(1), stream_}, view_, recv_.data(), count,
                          next_queue_.data(), level + 1);
  }
}

void CudaEngine::apply_eager(int level) {
  clear(false, false);
  if (eager_ > 0 && part_.parts > 1) {
    launch_apply_eager({grid(eager_ * (part_.parts - 1)), kBlock, append_shared_bytes(1), stream_}, view_,
                       eager_recv_.data(), table_.data(), eager_, g_.rank, row_words_, next_queue_.data(), level + 1);
  }
}

void CudaEngine::queue_to_bitmap() {
  std::uint32_t* mine = my_frontier_words();
  TESSERA_CUDA_CHECK(cudaMemsetAsync(mine, 0, local_words32_ * sizeof(std::uint32_t), stream_));
  if (queue_size_ > 0) {
    launch_queue_to_bitmap({grid(queue_size_), kBlock, 0, stream_}, queue_.data(), queue_size_, mine);
  }
}

void CudaEngine::bottom_up(int level) {
  clear(true, true);
  if (g_.count > 0) {
    launch_bottom_up({sms_ * 8, kBlock, 0, stream_}, view_, level + 1);
    launch_bottom_up_long({sms_ * 8, kBlock, 0, stream_}, view_, level + 1);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(my_frontier_words(), next_.data(),
                                       local_words32_ * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream_));
  }
}

void CudaEngine::bitmap_to_queue(std::int64_t count) {
  if (g_.count > 0) {
    TESSERA_CUDA_CHECK(cudaMemsetAsync(&counters_.data()->selected, 0, sizeof(ull), stream_));
    const std::int64_t words = (g_.count + 31) / 32;
    launch_bitmap_to_queue({grid((words + kBitmapWords - 1) / kBitmapWords), kBlock, 0, stream_}, my_frontier_words(),
                           words, g_.count, queue_.data(), &counters_.data()->selected);
  }
  queue_size_ = count;
}

bool CudaEngine::edge_parallel(int level) {
  windows_tracked_ = false;  // it reaches vertices without the visited bitmap
  if (sources_.empty() && g_.local_entries() > 0) {
    sources_ = DeviceBuffer<std::uint32_t>(g_.local_entries());
    launch_row_sources({grid(g_.count), kBlock, 0, stream_}, view_, sources_.data());
    view_.sources = sources_.data();
  }
  clear(true, true);
  if (g_.local_entries() > 0) {
    launch_edge_parallel({grid(g_.local_entries()), kBlock, 0, stream_}, view_, g_.local_entries(), level);
  }
  return read_counters().any != 0;
}

bool CudaEngine::apply_received_plain(int level, std::int64_t count) {
  TESSERA_CUDA_CHECK(cudaMemsetAsync(&counters_.data()->any, 0, sizeof(ull), stream_));
  if (count > 0) {
    launch_apply_received_plain({grid(count), kBlock, 0, stream_}, view_, recv_.data(), count, level);
  }
  return read_counters().any != 0;
}

void CudaEngine::fetch_level_table(int slot) {
  // After a share: the shared table and its status word; else this rank's table.
  const ull* from = shared_table_ ? shared_table_ : table_.data();
  const std::size_t bytes = table_.bytes() + (shared_table_ ? sizeof(ull) : 0);
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host_table_[slot].data(), from, bytes, cudaMemcpyDeviceToHost, stream_));
  TESSERA_CUDA_CHECK(cudaEventRecord(table_copied_[slot], stream_));
}

std::span<const std::int64_t> CudaEngine::wait_level_table(int slot) {
  TESSERA_CUDA_CHECK(cudaEventSynchronize(table_copied_[slot]));
  std::vector<std::int64_t>& out = table_copy_[slot];
  if (window_) throw_if_wait_failed(host_table_[slot].data()[out.size()]);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(host_table_[slot].data()[i]);
  return out;
}

bool CudaEngine::use_peer_memory(comm::Context& ctx, std::string* why) {
  const int p = part_.parts;
  const auto aligned = [](std::size_t b) { return (b + 255) / 256 * 256; };
  SharedLayout l{};
  std::size_t at = 0;
  for (std::size_t& t : l.table) {
    t = at;
    at += aligned((static_cast<std::size_t>(row_words_) * p + 1) * sizeof(ull));
  }
  l.frontier = at;
  at += aligned(static_cast<std::size_t>(global_words32_) * sizeof(std::uint32_t));
  l.hubs = at;
  at += aligned(static_cast<std::size_t>(hub_rank_word_host_.back()) * sizeof(ull));
  for (int r = 0; r < p; ++r) l.slot_pairs = std::max(l.slot_pairs, part_.range(r).count);
  l.receive = at;
  at += static_cast<std::size_t>(p - 1) * static_cast<std::size_t>(l.slot_pairs) * sizeof(uint2);
  try {
    window_ = std::make_unique<comm::PeerWindow>(ctx, at);  // collective; zeroed
  } catch (const comm::CollectiveError& e) {  // the same on every rank; nothing changed yet
    if (why) *why = e.what();
    return false;
  }
  comm::agree(ctx, [&] {
    layout_ = l;
    // Pairs for rank r go to r's receive area, slot k = this rank's place among r's others.
    std::vector<uint2*> dest(static_cast<std::size_t>(p), nullptr);
    for (int r = 0; r < p; ++r)
      if (r != g_.rank)
        dest[r] = reinterpret_cast<uint2*>(window_->remote(r) + l.receive) +
                  static_cast<std::int64_t>(g_.rank < r ? g_.rank : g_.rank - 1) * l.slot_pairs;
    dest_pairs_.upload(std::span<uint2* const>(dest.data(), dest.size()));
    frontier_words_ = reinterpret_cast<std::uint32_t*>(window_->local() + l.frontier);
    view_.frontier = frontier_words_;
    if (hubs_ > 0) {  // delegates: device-driven searches expand the hubs' rows on every rank
      view_.hub_words = reinterpret_cast<ull*>(window_->local() + l.hubs);
      view_.hub_degree = hub_degree_;
    }
    // What the transport's exchanges used.
    send_ = DeviceBuffer<uint2>();
    recv_ = DeviceBuffer<uint2>();
    eager_recv_ = DeviceBuffer<uint2>();
    frontier_ = DeviceBuffer<std::uint32_t>();
    eager_ = 0;
    TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
  });
  return true;
}

void CudaEngine::share(bool frontier) {
  const int t = static_cast<int>(shares_++ & 1);
  queue_share(t, frontier, false, false);
  shared_table_ = shared_table(t);
}

void CudaEngine::apply_shared(int level, std::int64_t bound) {
  clear(false, false);
  const std::int64_t most = std::min(bound, layout_.slot_pairs * (part_.parts - 1));
  if (most > 0) {
    launch_apply_shared({grid(most), kBlock, append_shared_bytes(1), stream_}, view_,
                        reinterpret_cast<const uint2*>(window_->local() + layout_.receive), layout_.slot_pairs,
                        shared_table_, row_words_, next_queue_.data(), level + 1);
  }
}

void CudaEngine::wake_peer_links() {
  if (!window_) return;
  constexpr std::int64_t kWakeBytes = std::int64_t{1} << 20;  // spread over every link (8 B did not do)
  const std::int64_t pairs = std::min<std::int64_t>(kWakeBytes / sizeof(uint2), layout_.slot_pairs);
  if (pairs <= 0) return;
  launch_wake_links({grid(pairs), kBlock, 0, stream_}, view_, pairs);
}

Reached CudaEngine::reached() {
  clear_counters();
  if (g_.count > 0) {
    launch_count_reached({grid(g_.count), kBlock, 0, stream_}, view_);
  }
  const Counters c = read_counters();
  return {static_cast<std::int64_t>(c.reached), static_cast<std::int64_t>(c.input_degree)};
}

void CudaEngine::download_window(std::span<std::int64_t> parent, std::span<std::int32_t> level) {
  stream_.synchronize();
  copy_bytes(parent.data(), parent_.data() + g_.begin, g_.count * sizeof(std::int64_t));
  copy_bytes(level.data(), level_.data() + g_.begin, g_.count * sizeof(std::int32_t));
}

void CudaEngine::download_global(std::span<std::int64_t> parent, std::span<std::int32_t> level) {
  stream_.synchronize();
  copy_bytes(parent.data(), parent_.data(), g_.vertices() * sizeof(std::int64_t));
  copy_bytes(level.data(), level_.data(), g_.vertices() * sizeof(std::int32_t));
}

void CudaEngine::upload_window(std::span<const std::int64_t> parent, std::span<const std::int32_t> level) {
  windows_tracked_ = false;
  stream_.synchronize();
  copy_bytes(parent_.data() + g_.begin, parent.data(), g_.count * sizeof(std::int64_t));
  copy_bytes(level_.data() + g_.begin, level.data(), g_.count * sizeof(std::int32_t));
}

CheckCounts CudaEngine::check(std::int64_t root) {
  const std::int64_t n = g_.vertices();
  if (anc_.empty()) {
    anc_ = DeviceBuffer<std::int64_t>(n);
    anc_next_ = DeviceBuffer<std::int64_t>(n);
  }
  launch_first_ancestors({grid(n), kBlock, 0, stream_}, parent_.data(), n, root, anc_.data());
  for (int round = 0; round < jump_rounds(n); ++round) {
    clear_counters();
    launch_jump({grid(n), kBlock, 0, stream_}, anc_.data(), n, anc_next_.data(), counters_.data());
    std::swap(anc_, anc_next_);
    if (read_counters().changed == 0) break;
  }
  clear_counters();
  TESSERA_CUDA_CHECK(cudaMemsetAsync(counters_.data()->check_first, 0xFF, sizeof(ull) * kChecks, stream_));
  if (g_.count > 0) {
    launch_check_vertices({grid(g_.count), kBlock, 0, stream_}, view_, root, anc_.data());
    launch_check_edges({grid(g_.count * 32), kBlock, 0, stream_}, view_);
  }
  const Counters c = read_counters();
  CheckCounts out;
  for (int k = 0; k < kChecks; ++k) {
    out.count[k] = static_cast<std::int64_t>(c.check_count[k]);
    out.first[k] = c.check_first[k] == ~0ull ? INT64_MAX : static_cast<std::int64_t>(c.check_first[k]);
  }
  return out;
}

// Queues a share of this rank's row (and, with `frontier`, its words of the frontier bitmap;
// with `hubs`, its words of the hub bitmap) into table t of every rank; `stamped`: a
// device-driven level's share, which takes the level's clock readings for share t.
void CudaEngine::queue_share(int t, bool frontier, bool hubs, bool stamped) {
  const Range words = block_range(part_.words(), part_.parts, g_.rank);
  const std::int64_t count = frontier ? words.count : 0;
  HubShare h;
  if (hubs && view_.hub_words) {
    h.offset = layout_.hubs;
    h.word_begin = hub_rank_word_host_[g_.rank];
    h.count = my_hubs_;
    h.ids = hub_ids_.data() + my_first_hub_;
    h.begin = g_.begin;
    h.visited = visited_.data();
    h.level = level_.data();
    h.level_now = level_now();
    h.settled = view_.hub_settled;
  }
  const std::int64_t threads = std::max(count, h.count);
  const int blocks = static_cast<int>(std::clamp<std::int64_t>((threads + kBlock - 1) / kBlock, 1, std::int64_t{sms_} * 4));
  ShareStamps stamps;
  if (stamped) stamps = ShareStamps{stamps_.data(), level_now(), t};
  launch_share({blocks, kBlock, 0, stream_}, window_->view(), view_.row, row_words_, layout_.table[t], layout_.frontier,
               words.begin, count, h, shares_on_device_.data(), stamps);
}

// The delegated hubs on the device (none: empty buffers of one entry).
void CudaEngine::upload_delegates(const Delegates& dl) {
  hubs_ = dl.count();
  hub_degree_ = dl.active() ? dl.threshold : INT64_MAX;
  std::vector<std::uint32_t> ids(dl.hubs.begin(), dl.hubs.end());
  hub_rank_word_host_ = dl.active() ? dl.word_first : std::vector<std::int64_t>(part_.parts + 1, 0);
  my_first_hub_ = dl.active() ? dl.first[g_.rank] : 0;
  my_hubs_ = dl.active() ? dl.first[g_.rank + 1] - dl.first[g_.rank] : 0;
  const std::vector<std::int64_t> first = dl.active() ? dl.first : std::vector<std::int64_t>(part_.parts + 1, 0);
  const std::vector<std::int64_t> offsets = dl.active() ? dl.offsets : std::vector<std::int64_t>(1, 0);
  const auto upload = [](auto& buffer, const auto& host) {
    using T = typename std::decay_t<decltype(host)>::value_type;
    buffer = std::decay_t<decltype(buffer)>(std::max<std::size_t>(host.size(), 1));
    if (!host.empty()) buffer.upload(std::span<const T>(host.data(), host.size()));
  };
  upload(hub_ids_, ids);
  upload(hub_rank_first_, first);
  upload(hub_rank_word_, hub_rank_word_host_);
  upload(hub_offsets_, offsets);
  upload(hub_targets_, dl.targets);
  hub_list_ = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(std::max<std::int64_t>(hubs_, 1)));
  hub_settled_ = zeroed<std::uint32_t>((my_hubs_ + 31) / 32);
}

// Before a level step: this rank's row (whole, or found and edges only) and the counters.
void CudaEngine::clear(bool whole_row, bool counters) {
  launch_clear_step({1, 64, 0, stream_}, view_, whole_row ? row_words_ : kRowPairs, counters);
}

// Waits for the step and returns its counters.
Counters CudaEngine::read_counters() {
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host_counters_.data(), counters_.data(), sizeof(Counters),
                                     cudaMemcpyDeviceToHost, stream_));
  stream_.synchronize();
  return *host_counters_.data();
}

// The columns as 32-bit ids, narrowed on the host by all threads into two pinned staging
// buffers in turn, each copied while the other is filled (at scale 26 the graph is 8 GiB
// on the device: a pageable copy, or narrowing on one thread, takes seconds).
void CudaEngine::upload_columns() {
  const std::int64_t total = g_.local_entries();
  if (total == 0) return;
  const std::int64_t chunk = std::min<std::int64_t>(total, std::int64_t{1} << 25);  // 128 MiB
  PinnedBuffer<std::uint32_t> stage[2] = {PinnedBuffer<std::uint32_t>(static_cast<std::size_t>(chunk)),
                                          PinnedBuffer<std::uint32_t>(static_cast<std::size_t>(chunk))};
  cudaEvent_t copied[2] = {};
  for (cudaEvent_t& e : copied) TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  for (std::int64_t first = 0, k = 0; first < total; first += chunk, ++k) {
    const int s = static_cast<int>(k & 1);
    const std::int64_t n = std::min(chunk, total - first);
    if (k >= 2) TESSERA_CUDA_CHECK(cudaEventSynchronize(copied[s]));  // its previous copy is done
    narrow_columns(g_, first, std::span<std::uint32_t>(stage[s].data(), static_cast<std::size_t>(n)));
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(columns_.data() + first, stage[s].data(), n * sizeof(std::uint32_t),
                                       cudaMemcpyHostToDevice, stream_));
    TESSERA_CUDA_CHECK(cudaEventRecord(copied[s], stream_));
  }
  stream_.synchronize();
  for (cudaEvent_t e : copied) TESSERA_CUDA_CHECK(cudaEventDestroy(e));
}

}  // namespace tessera::bfs::gpu

namespace tessera::bfs {

std::unique_ptr<SearchBackend> make_cuda_engine(const LocalGraph& graph, std::int64_t eager,
                                                 const Delegates& delegates) {
  return std::make_unique<gpu::CudaEngine>(graph, eager, delegates);
}

}  // namespace tessera::bfs
