#include "solvers/bfs/graph.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <numeric>

#include "comm/collectives.hpp"
#include "core/log.hpp"

namespace tessera::bfs {
namespace {

// Below this many items a loop runs on one thread (see kernels_cpu.cpp).
constexpr std::int64_t kParallelItems = std::int64_t{1} << 15;

std::int64_t exclusive_scan_inplace(std::vector<std::int64_t>& v) {
  std::int64_t sum = 0;
  for (auto& x : v) {
    const std::int64_t d = x;
    x = sum;
    sum += d;
  }
  return sum;
}

// Packs both directions of each edge, grouped by the owner of the source, for alltoallv.
// Returns interleaved pairs; counts[r] = int64 elements for rank r.
std::vector<std::int64_t> pack_by_owner(const VertexPartition& part, std::span<const Edge> edges,
                                        std::vector<std::int64_t>& counts) {
  const int p = part.parts;
  const auto m = static_cast<std::int64_t>(edges.size());
  const int threads = m >= kParallelItems ? omp_get_max_threads() : 1;
  // Per-thread counts per destination, then each thread writes its own slots.
  std::vector<std::int64_t> thread_counts(static_cast<std::size_t>(threads) * p, 0);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    std::int64_t* mine = thread_counts.data() + static_cast<std::size_t>(t) * p;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
      ++mine[part.owner(edges[i].u)];
      ++mine[part.owner(edges[i].v)];
    }
  }
  counts.assign(p, 0);
  std::vector<std::int64_t> cursor(thread_counts.size());
  std::int64_t at = 0;
  for (int r = 0; r < p; ++r) {
    for (int t = 0; t < threads; ++t) {
      cursor[static_cast<std::size_t>(t) * p + r] = at;
      at += thread_counts[static_cast<std::size_t>(t) * p + r];
    }
    counts[r] = 0;
    for (int t = 0; t < threads; ++t) counts[r] += 2 * thread_counts[static_cast<std::size_t>(t) * p + r];
  }
  std::vector<std::int64_t> out(static_cast<std::size_t>(2 * at));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    std::int64_t* cur = cursor.data() + static_cast<std::size_t>(t) * p;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
      const Edge e = edges[i];
      std::int64_t k = cur[part.owner(e.u)]++;
      out[2 * k] = e.u;
      out[2 * k + 1] = e.v;
      k = cur[part.owner(e.v)]++;
      out[2 * k] = e.v;
      out[2 * k + 1] = e.u;
    }
  }
  return out;
}

}  // namespace

LocalGraph csr_from_entries(VertexPartition partition, int rank, std::vector<std::int64_t> pairs) {
  LocalGraph g;
  g.partition = partition;
  g.rank = rank;
  const Range own = partition.range(rank);
  g.begin = own.begin;
  g.count = own.count;
  const std::int64_t nl = own.count, begin = own.begin;
  const auto entries = static_cast<std::int64_t>(pairs.size() / 2);

  // Input degrees (every entry, repeats and self-loops included), then rows by counting sort.
  g.input_degree.assign(static_cast<std::size_t>(nl), 0);
#pragma omp parallel for schedule(static) if (entries >= kParallelItems)
  for (std::int64_t i = 0; i < entries; ++i)
    std::atomic_ref<std::int64_t>(g.input_degree[pairs[2 * i] - begin]).fetch_add(1, std::memory_order_relaxed);
  std::vector<std::int64_t> raw_offsets(g.input_degree);
  raw_offsets.push_back(0);
  exclusive_scan_inplace(raw_offsets);
  std::vector<std::int64_t> raw(static_cast<std::size_t>(entries));
  {
    std::vector<std::int64_t> cursor(raw_offsets.begin(), raw_offsets.end() - 1);
#pragma omp parallel for schedule(static) if (entries >= kParallelItems)
    for (std::int64_t i = 0; i < entries; ++i) {
      const std::int64_t at =
          std::atomic_ref<std::int64_t>(cursor[pairs[2 * i] - begin]).fetch_add(1, std::memory_order_relaxed);
      raw[at] = pairs[2 * i + 1];
    }
  }
  pairs = {};

  // Each row sorted, repeats and the self-loop dropped, compacted to the row's start.
  std::vector<std::int64_t> degree(static_cast<std::size_t>(nl) + 1, 0);
#pragma omp parallel for schedule(dynamic, 256) if (nl >= kParallelItems / 8)
  for (std::int64_t v = 0; v < nl; ++v) {
    auto first = raw.begin() + raw_offsets[v], last = raw.begin() + raw_offsets[v + 1];
    std::sort(first, last);
    last = std::unique(first, last);
    last = std::remove(first, last, begin + v);
    degree[v] = last - first;
  }
  g.offsets = degree;
  const std::int64_t kept = exclusive_scan_inplace(g.offsets);
  g.columns.resize(static_cast<std::size_t>(kept));
#pragma omp parallel for schedule(dynamic, 256) if (nl >= kParallelItems / 8)
  for (std::int64_t v = 0; v < nl; ++v)
    std::copy_n(raw.begin() + raw_offsets[v], degree[v], g.columns.begin() + g.offsets[v]);
  return g;
}

LocalGraph build_graph(comm::Context& ctx, const EdgeSource& source, std::int64_t chunk_edges) {
  const VertexPartition part{source.vertices(), ctx.size()};
  const std::int64_t local = source.local_edges();
  const std::int64_t rounds = comm::allreduce(ctx, (local + chunk_edges - 1) / chunk_edges, comm::Op::max);
  std::vector<std::int64_t> received;  // interleaved (source, target) pairs owned here
  std::vector<Edge> chunk;
  std::int64_t self_loops = 0;
  for (std::int64_t round = 0; round < rounds; ++round) {
    const std::int64_t first = std::min(round * chunk_edges, local);
    const std::int64_t count = std::min(chunk_edges, local - first);
    chunk.resize(static_cast<std::size_t>(count));
    source.fill(first, chunk);
    for (const Edge& e : chunk) self_loops += e.u == e.v ? 1 : 0;
    std::vector<std::int64_t> counts;
    std::vector<std::int64_t> packed = pack_by_owner(part, chunk, counts);
    if (ctx.size() == 1) {
      received.insert(received.end(), packed.begin(), packed.end());
    } else {
      const std::vector<std::int64_t> in =
          comm::alltoallv<std::int64_t>(ctx, std::span<const std::int64_t>(packed), counts);
      received.insert(received.end(), in.begin(), in.end());
    }
  }
  chunk = {};
  LocalGraph g = csr_from_entries(part, ctx.rank(), std::move(received));
  std::int64_t totals[3] = {local, self_loops, g.local_entries()};
  comm::allreduce_inplace(ctx, std::span<std::int64_t>(totals, 3), comm::Op::sum);
  g.input_edges = totals[0];
  g.self_loops = totals[1];
  g.directed_edges = totals[2];
  return g;
}

LocalGraph build_serial_graph(std::int64_t n, std::span<const Edge> edges) {
  std::vector<std::int64_t> pairs(4 * edges.size());
  std::int64_t self_loops = 0;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    pairs[4 * i] = edges[i].u;
    pairs[4 * i + 1] = edges[i].v;
    pairs[4 * i + 2] = edges[i].v;
    pairs[4 * i + 3] = edges[i].u;
    self_loops += edges[i].u == edges[i].v ? 1 : 0;
  }
  LocalGraph g = csr_from_entries(VertexPartition{n, 1}, 0, std::move(pairs));
  g.input_edges = static_cast<std::int64_t>(edges.size());
  g.self_loops = self_loops;
  g.directed_edges = g.local_entries();
  return g;
}

}  // namespace tessera::bfs
