#include "solvers/bfs/search.hpp"

#include <fmt/format.h>

#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "solvers/bfs/exchange.hpp"
#include "solvers/bfs/reference.hpp"

namespace tessera::bfs {

BfsEngine::BfsEngine(comm::Context& ctx, comm::Transport& transport, const LocalGraph& graph, Backend backend,
                     SearchOptions options)
    : ctx_(ctx), transport_(transport), graph_(graph), backend_(backend), options_(options) {
  if (options.algorithm == Algorithm::serial && (backend != Backend::cpu || ctx.size() != 1))
    throw InputError(fmt::format("the serial BFS runs on the cpu backend on one rank (here: {} backend, {} ranks)",
                                 to_string(backend), ctx.size()));
  if ((backend == Backend::cuda) != (transport.memory() == Memory::device))
    throw std::logic_error("bfs: the transport's memory does not match the backend");
  comm::agree(ctx, [&] {
    if (backend == Backend::cuda) {
#if defined(TESSERA_HAVE_CUDA)
      kernels_ = make_cuda_kernels(graph);
#else
      throw InputError("this tessera was built without CUDA: use the cpu backend");
#endif
    } else {
      kernels_ = make_cpu_kernels(graph);
    }
  });
}

SearchResult BfsEngine::search(std::int64_t root) {
  SearchResult r;
  r.root = root;
  comm::barrier(ctx_);
  HostTimer timer;
  switch (options_.algorithm) {
    case Algorithm::edge_parallel: run_edge_parallel(root, r); break;
    case Algorithm::serial: run_serial(root, r); break;
    default: run_levels(root, r); break;
  }
  kernels_->synchronize();
  r.seconds = comm::allreduce(ctx_, timer.seconds(), comm::Op::max);
  // Graph500's count (untimed): input edges with both ends in the component, once each.
  const Reached mine = kernels_->reached();
  std::int64_t totals[2] = {mine.vertices, mine.input_degree};
  comm::allreduce_inplace(ctx_, std::span<std::int64_t>(totals, 2), comm::Op::sum);
  r.reached = totals[0];
  r.input_edges = totals[1] / 2;
  return r;
}

void BfsEngine::run_levels(std::int64_t root, SearchResult& r) {
  SearchKernels& k = *kernels_;
  const VertexPartition& part = graph_.partition;
  const int p = ctx_.size();
  const auto n = static_cast<double>(graph_.vertices());
  std::vector<std::int64_t> send_counts(static_cast<std::size_t>(p), 0);

  k.reset();
  k.start(root);
  // The frontier of level 0 is the root: one vertex, its degree in edges.
  std::int64_t local_frontier = graph_.owns(root) ? 1 : 0;
  const std::int64_t root_degree =
      comm::allreduce(ctx_, graph_.owns(root) ? graph_.degree(root - graph_.begin) : std::int64_t{0}, comm::Op::sum);
  std::int64_t frontier_vertices = 1, frontier_edges = root_degree;
  std::int64_t unexplored_edges = graph_.directed_edges - root_degree;

  const Algorithm alg = options_.algorithm;
  bool bottom_up = alg == Algorithm::bottom_up;
  bool frontier_is_queue = true;
  int level = 0;
  while (true) {
    if (alg == Algorithm::direction_optimizing) {
      if (!bottom_up && static_cast<double>(frontier_edges) > static_cast<double>(unexplored_edges) / options_.policy.alpha)
        bottom_up = true;
      else if (bottom_up && static_cast<double>(frontier_vertices) < n / options_.policy.beta)
        bottom_up = false;
    }
    Discovered found;
    if (bottom_up) {
      if (frontier_is_queue) {
        k.queue_to_bitmap();
        allgather_bitmap(ctx_, transport_, k.stream(), k.frontier_bitmap(), part);
      }
      found = k.bottom_up(level);
      allgather_bitmap(ctx_, transport_, k.stream(), k.frontier_bitmap(), part);
      frontier_is_queue = false;
      ++r.bottom_up_levels;
    } else {
      if (!frontier_is_queue) k.bitmap_to_queue(local_frontier);
      found = k.top_down(level, send_counts);
      if (p > 1) {
        const std::int64_t got = exchange_pairs(ctx_, transport_, k.stream(), send_counts, k.send_pairs(), part,
                                                k.pair_bytes(), k.receive_pairs(), k.receive_capacity());
        found += k.apply_received(level, got);
      }
      k.swap_queues();
      frontier_is_queue = true;
      ++r.top_down_levels;
    }
    local_frontier = found.vertices;
    std::int64_t totals[2] = {found.vertices, found.edges};
    comm::allreduce_inplace(ctx_, std::span<std::int64_t>(totals, 2), comm::Op::sum);
    if (totals[0] == 0) break;
    frontier_vertices = totals[0];
    frontier_edges = totals[1];
    unexplored_edges -= frontier_edges;
    ++level;
  }
  r.depth = level;
}

void BfsEngine::run_edge_parallel(std::int64_t root, SearchResult& r) {
  SearchKernels& k = *kernels_;
  const int p = ctx_.size();
  std::vector<std::int64_t> send_counts(static_cast<std::size_t>(p), 0);
  k.reset();
  k.start(root);
  int level = 0;
  while (true) {
    bool any = k.edge_parallel(level, send_counts);
    if (p > 1) {
      const std::int64_t got = exchange_pairs(ctx_, transport_, k.stream(), send_counts, k.send_pairs(),
                                              graph_.partition, k.pair_bytes(), k.receive_pairs(), k.receive_capacity());
      any = k.apply_received_plain(level, got) || any;
    }
    ++r.top_down_levels;
    if (comm::allreduce(ctx_, any ? 1 : 0, comm::Op::max) == 0) break;
    ++level;
  }
  r.depth = level;
}

void BfsEngine::run_serial(std::int64_t root, SearchResult& r) {
  const BfsTree t = serial_bfs(graph_, root);
  int depth = 0;
  for (std::int32_t l : t.level) depth = l > depth ? l : depth;
  r.depth = depth;
  r.top_down_levels = depth + 1;
  kernels_->reset();
  kernels_->upload_window(t.parent, t.level);
}

BfsTree BfsEngine::local_tree() {
  BfsTree t;
  t.parent.resize(static_cast<std::size_t>(graph_.count));
  t.level.resize(static_cast<std::size_t>(graph_.count));
  kernels_->download_window(t.parent, t.level);
  return t;
}

void BfsEngine::gather_tree() {
  SearchKernels& k = *kernels_;
  allgather_vertex_array(ctx_, transport_, k.stream(), k.parent_global(), graph_.partition, sizeof(std::int64_t),
                         kTagParent);
  allgather_vertex_array(ctx_, transport_, k.stream(), k.level_global(), graph_.partition, sizeof(std::int32_t),
                         kTagLevel);
}

BfsTree BfsEngine::global_tree() {
  gather_tree();
  BfsTree t;
  t.parent.resize(static_cast<std::size_t>(graph_.vertices()));
  t.level.resize(static_cast<std::size_t>(graph_.vertices()));
  kernels_->download_global(t.parent, t.level);
  return t;
}

}  // namespace tessera::bfs
