#include "solvers/bfs/search.hpp"

#include <fmt/format.h>

#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/profile.hpp"
#include "core/timer.hpp"
#include "solvers/bfs/delegates.hpp"
#include "solvers/bfs/exchange.hpp"
#include "solvers/bfs/reference.hpp"

namespace tessera::bfs {
namespace {

// Pairs per rank sent with the level counts: none with one rank, else the request (32768
// when negative: 256 KiB on the GPU, a few microseconds of NVLink), at most n.
std::int64_t eager_pairs(const LocalGraph& graph, std::int64_t requested) {
  if (graph.partition.parts == 1) return 0;
  return std::min(requested < 0 ? std::int64_t{1} << 15 : requested, graph.vertices());
}

// Whether the algorithm runs the level loop (the edge-parallel and serial baselines do not).
bool runs_levels(Algorithm a) {
  return a == Algorithm::direction_optimizing || a == Algorithm::top_down || a == Algorithm::bottom_up;
}

}  // namespace

std::string_view to_string(ExchangeMode m) {
  switch (m) {
    case ExchangeMode::automatic: return "auto";
    case ExchangeMode::peer: return "peer";
    case ExchangeMode::transport: return "transport";
  }
  return "?";
}

ExchangeMode parse_exchange_mode(std::string_view text) {
  for (ExchangeMode m : {ExchangeMode::automatic, ExchangeMode::peer, ExchangeMode::transport})
    if (text == to_string(m)) return m;
  throw InputError(fmt::format("unknown BFS exchange '{}' (choose auto, peer or transport)", text));
}

SearchDriver::SearchDriver(comm::Context& ctx, comm::Transport& transport, const LocalGraph& graph,
                           Backend backend, SearchOptions options)
    : ctx_(ctx), transport_(transport), graph_(graph), kind_(backend), options_(options),
      profile_(LevelProfile::requested()) {
  if (options.algorithm == Algorithm::serial && (backend != Backend::cpu || ctx.size() != 1))
    throw InputError(fmt::format("the serial BFS runs on the cpu backend on one rank (here: {} backend, {} ranks)",
                                 to_string(backend), ctx.size()));
  if ((backend == Backend::cuda) != (transport.memory() == Memory::device))
    throw std::logic_error("bfs: the transport's memory does not match the backend");
  // Delegated hubs serve device-driven searches through peer memory only (backend.hpp); they
  // are built (collectively) before knowing whether peer memory will be possible.
  Delegates delegates;
  if (backend == Backend::cuda && ctx.size() > 1 && options.device_levels && runs_levels(options.algorithm) &&
      options.exchange != ExchangeMode::transport)
    delegates = build_delegates(ctx, graph, choose_hub_degree(ctx, graph, options.hub_degree));
  comm::agree(ctx, [&] {
    if (backend == Backend::cuda) {
#if defined(TESSERA_HAVE_CUDA)
      backend_ = make_cuda_engine(graph, eager_pairs(graph, options.eager_pairs), delegates);
#else
      throw InputError("this tessera was built without CUDA: use the cpu backend");
#endif
    } else {
      backend_ = make_cpu_engine(graph, eager_pairs(graph, options.eager_pairs));
    }
  });
  choose_exchange();
  // After choose_exchange: with several ranks the cuda backend runs the levels only with peer memory.
  if (options_.device_levels && runs_levels(options_.algorithm)) device_loop_ = backend_->device_loop();
  if (device_loop_ && peer_) {
    delegated_hubs_ = delegates.count();
    hub_degree_ = delegates.threshold;
  }
}

void SearchDriver::choose_exchange() {
  if (ctx_.size() == 1) {
    exchange_reason_ = "none (one rank)";
    return;
  }
  std::string why;  // why not through peer memory
  PeerExchange* const peer = backend_->peer_exchange();
  if (options_.exchange == ExchangeMode::transport) {
    why = "bfs.exchange = \"transport\"";
  } else if (!peer) {
    why = fmt::format("the {} backend", to_string(kind_));
  } else if (!runs_levels(options_.algorithm)) {
    why = fmt::format("the {} search has no peer-memory path", to_string(options_.algorithm));
  } else if (options_.exchange == ExchangeMode::automatic &&
             comm::allreduce(ctx_, ctx_.local_size() > ctx_.visible_devices() ? 1 : 0, comm::Op::max) != 0) {
    // A share spins on the GPU until the other ranks' shares arrive: ranks time-sliced on one
    // GPU wait out each other's slices, every share. Correct but slow, so only on request
    // ("peer": how the tests cover this path on a host with one GPU).
    why = "ranks share GPUs";
  } else if (peer->use_peer_memory(ctx_, &why)) {  // collective: same outcome on every rank
    peer_ = peer;
    exchange_reason_ = "through peer memory (the GPUs store pairs, counts and frontier words into each other's)";
    return;
  }
  if (options_.exchange == ExchangeMode::peer)
    throw InputError(fmt::format("bfs.exchange = \"peer\" is not possible here: {}", why));
  exchange_reason_ = fmt::format("on the transport ({})", why);
}

SearchResult SearchDriver::search(std::int64_t root) {
  SearchResult r;
  r.root = root;
  // The root's degree (a property of the graph, which the direction heuristic starts from),
  // then a meeting on the transport: every rank leaves it at about the same moment (it
  // spins on its stream), so no rank's clock starts early. Peer links are woken before it.
  const std::int64_t root_degree =
      comm::allreduce(ctx_, graph_.owns(root) ? graph_.degree(root - graph_.begin) : std::int64_t{0}, comm::Op::sum);
  if (options_.wake_links && peer_) peer_->wake_peer_links();
  level_counts();
  HostTimer timer;
  profile_.start_search();
  bool finish_queued = false;  // a device-driven search queues it before its one wait
  switch (options_.algorithm) {
    case Algorithm::edge_parallel: run_edge_parallel(root, r); break;
    case Algorithm::serial: run_serial(root, r); break;
    default:
      if (device_loop_) {
        run_levels_on_device(root, root_degree, r);
        finish_queued = true;
      } else {
        run_levels(root, root_degree, r);
      }
      break;
  }
  if (!finish_queued) backend_->finish_search();
  backend_->synchronize();
  const double mine = timer.seconds();
  r.seconds = comm::allreduce(ctx_, mine, comm::Op::max);
  if (profile_.on() && device_loop_) profile_.record_clocks(ctx_, device_loop_->level_clocks());
  if (profile_.on() && ctx_.rank() == 0) log::info("{}", profile_.report(root, r.seconds, ctx_.size()));
  // Graph500's count (untimed): input edges with both ends in the component, once each.
  const Reached reached = backend_->reached();
  std::int64_t totals[2] = {reached.vertices, reached.input_degree};
  comm::allreduce_inplace(ctx_, std::span<std::int64_t>(totals, 2), comm::Op::sum);
  r.reached = totals[0];
  r.input_edges = totals[1] / 2;
  return r;
}

void SearchDriver::exchange_rows() {
  SearchBackend& k = *backend_;
  TESSERA_PROFILE_SYNC("bfs.exchange_counts", k.stream());  // every rank's row of level counts
  if (peer_) peer_->share(false);
  else if (ctx_.size() > 1) allgather_rows(ctx_, transport_, k.stream(), k.level_table(), graph_.partition);
}

std::span<const std::int64_t> SearchDriver::level_counts() {
  exchange_rows();
  backend_->fetch_level_table();
  return backend_->wait_level_table();
}

void SearchDriver::allgather_frontier() {
  TESSERA_PROFILE_SYNC("bfs.exchange_frontier", backend_->stream());  // the bitmap words a bottom-up level reads
  if (peer_) peer_->share(true);
  else allgather_bitmap(ctx_, transport_, backend_->stream(), backend_->frontier_bitmap(), graph_.partition);
}

void SearchDriver::run_levels(std::int64_t root, std::int64_t root_degree, SearchResult& r) {
  SearchBackend& k = *backend_;
  LevelProfile& prof = profile_;
  const VertexPartition& part = graph_.partition;
  const int p = ctx_.size(), me = ctx_.rank();
  const std::int64_t row = level_row_size(p);
  const auto n = static_cast<double>(graph_.vertices());
  const auto sum = [&](std::span<const std::int64_t> table, int field) {
    std::int64_t s = 0;
    for (int q = 0; q < p; ++q) s += table[q * row + field];
    return s;
  };

  k.reset_for_claims();
  k.start(root);
  // The frontier of level 0 is the root: one vertex, its degree in edges.
  std::int64_t local_frontier = graph_.owns(root) ? 1 : 0;
  std::int64_t frontier_vertices = 1, frontier_edges = root_degree;
  std::int64_t unexplored_edges = graph_.directed_edges - root_degree;

  const Algorithm alg = options_.algorithm;
  PeerExchange* const peer = peer_;  // null: the transport
  bool bottom_up = alg == Algorithm::bottom_up;
  bool frontier_is_queue = true;
  std::int64_t previous_vertices = 0;  // the frontier of the level before
  int level = 0;
  while (true) {
    if (alg == Algorithm::direction_optimizing)
      bottom_up = next_bottom_up(bottom_up, frontier_vertices, previous_vertices, frontier_edges, unexplored_edges, n,
                                 options_.policy.alpha, options_.policy.beta);
    prof.begin_level(level, bottom_up, frontier_vertices, frontier_edges);
    std::int64_t found = 0, edges = 0;  // over all ranks
    if (bottom_up) {
      // Every rank's current words of the frontier bitmap, which a bottom-up level reads whole.
      // (Only here: after a bottom-up level the words stay local until the next one needs them,
      // and a top-down level after it never does.)
      if (frontier_is_queue) {
        k.queue_to_bitmap();
        prof.mark(LevelProfile::kKernels, k);
      }
      if (p > 1) {
        allgather_frontier();
        prof.mark(LevelProfile::kExchange, k);
      }
      k.bottom_up(level);
      prof.mark(LevelProfile::kKernels, k);
      exchange_rows();
      k.fetch_level_table();
      const std::span<const std::int64_t> table = k.wait_level_table();
      prof.mark(LevelProfile::kCounts, k);
      local_frontier = table[me * row + kRowFound];
      found = sum(table, kRowFound);
      edges = sum(table, kRowEdges);
      frontier_is_queue = false;
      ++r.bottom_up_levels;
    } else {
      if (!frontier_is_queue) k.bitmap_to_queue(local_frontier);
      k.top_down(level);
      prof.mark(LevelProfile::kKernels, k);
      std::int64_t queued = 0;
      const auto add = [&](std::span<const std::int64_t> table) {
        queued += table[me * row + kRowFound];
        found += sum(table, kRowFound);
        edges += sum(table, kRowEdges);
      };
      if (p == 1) {
        add(level_counts());
        prof.mark(LevelProfile::kCounts, k);
      } else if (peer) {
        // The pairs are already in their owners' memory: the rows say how many; the owners
        // claim them, and the rows of the claims follow. One host wait for both tables.
        peer->share(false);
        k.fetch_level_table(0);
        prof.mark(LevelProfile::kExchange, k);
        peer->apply_shared(level, frontier_edges);
        prof.mark(LevelProfile::kKernels, k);
        peer->share(false);
        k.fetch_level_table(1);
        add(k.wait_level_table(0));
        add(k.wait_level_table(1));
        prof.mark(LevelProfile::kCounts, k);
      } else {
        // The counts and the first pairs of every region travel together; the owners claim
        // those at once, reading the counts on their side, while the host reads them too. Only
        // when some region held more than the eager messages carry do the rest follow (sizes
        // from the table). One more allgather of the rows then gives the claims' totals.
        const EagerPairs eager{k.send_pairs(), k.eager_receive(), k.eager_capacity(), k.pair_bytes()};
        allgather_rows(ctx_, transport_, k.stream(), k.level_table(), part, &eager);
        k.fetch_level_table(0);
        prof.mark(LevelProfile::kExchange, k);
        k.apply_eager(level);
        prof.mark(LevelProfile::kKernels, k);
        const std::span<const std::int64_t> sent = k.wait_level_table(0);
        bool more = false;  // pairs that did not fit the eager messages (every rank sees the same)
        for (int q = 0; q < p && !more; ++q)
          for (int t = 0; t < p; ++t) more = more || (q != t && sent[q * row + kRowPairs + t] > eager.capacity);
        if (more) {
          const std::int64_t got = exchange_pairs(ctx_, transport_, k.stream(), sent, k.send_pairs(), part,
                                                  k.pair_bytes(), k.receive_pairs(), k.receive_capacity(),
                                                  eager.capacity);
          prof.mark(LevelProfile::kExchange, k);
          k.apply_received(level, got);
          prof.mark(LevelProfile::kKernels, k);
        }
        allgather_rows(ctx_, transport_, k.stream(), k.level_table(), part);
        k.fetch_level_table(1);
        add(sent);
        add(k.wait_level_table(1));
        prof.mark(LevelProfile::kCounts, k);
      }
      k.swap_queues(queued);
      frontier_is_queue = true;
      ++r.top_down_levels;
    }
    if (found == 0) break;
    previous_vertices = frontier_vertices;
    frontier_vertices = found;
    frontier_edges = edges;
    unexplored_edges -= frontier_edges;
    ++level;
  }
  r.depth = level;
}

// The GPU decides every level; the host waits once, for the end of the search. Profiled, the
// levels' times come from the GPUs' clocks afterwards (the search runs as it does unprofiled).
void SearchDriver::run_levels_on_device(std::int64_t root, std::int64_t root_degree, SearchResult& r) {
  DeviceLoop& loop = *device_loop_;
  backend_->reset_for_claims();
  loop.begin_levels(root, root_degree, options_.algorithm, options_.policy);
  loop.queue_levels();
  backend_->finish_search();  // behind the levels on the stream, so the one wait covers it too
  const LevelState s = loop.level_state();
  r.depth = s.level;
  r.top_down_levels = s.top_down_levels;
  r.bottom_up_levels = s.bottom_up_levels;
}

void SearchDriver::run_edge_parallel(std::int64_t root, SearchResult& r) {
  SearchBackend& k = *backend_;
  const int p = ctx_.size();
  k.reset();
  k.start(root);
  int level = 0;
  while (true) {
    bool any = k.edge_parallel(level);
    if (p > 1) {
      const std::int64_t got = exchange_pairs(ctx_, transport_, k.stream(), level_counts(), k.send_pairs(),
                                              graph_.partition, k.pair_bytes(), k.receive_pairs(), k.receive_capacity());
      any = k.apply_received_plain(level, got) || any;
    }
    ++r.top_down_levels;
    if (comm::allreduce(ctx_, any ? 1 : 0, comm::Op::max) == 0) break;
    ++level;
  }
  r.depth = level;
}

void SearchDriver::run_serial(std::int64_t root, SearchResult& r) {
  const BfsTree t = serial_bfs(graph_, root);
  int depth = 0;
  for (std::int32_t l : t.level) depth = l > depth ? l : depth;
  r.depth = depth;
  r.top_down_levels = depth + 1;
  backend_->reset();
  backend_->upload_window(t.parent, t.level);
}

BfsTree SearchDriver::local_tree() {
  BfsTree t;
  t.parent.resize(static_cast<std::size_t>(graph_.count));
  t.level.resize(static_cast<std::size_t>(graph_.count));
  backend_->download_window(t.parent, t.level);
  return t;
}

void SearchDriver::gather_tree() {
  SearchBackend& k = *backend_;
  allgather_vertex_array(ctx_, transport_, k.stream(), k.parent_global(), graph_.partition, sizeof(std::int64_t),
                         kTagParent);
  allgather_vertex_array(ctx_, transport_, k.stream(), k.level_global(), graph_.partition, sizeof(std::int32_t),
                         kTagLevel);
}

BfsTree SearchDriver::global_tree() {
  gather_tree();
  BfsTree t;
  t.parent.resize(static_cast<std::size_t>(graph_.vertices()));
  t.level.resize(static_cast<std::size_t>(graph_.vertices()));
  backend_->download_global(t.parent, t.level);
  return t;
}

}  // namespace tessera::bfs
