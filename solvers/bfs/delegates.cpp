#include "solvers/bfs/delegates.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <array>

#include "comm/collectives.hpp"
#include "core/error.hpp"

namespace tessera::bfs {
namespace {

// At most this many hubs (a threshold asked for by hand can be low): each thread counts the
// entries of every hub while the rows are built.
constexpr std::int64_t kMaxHubs = std::int64_t{1} << 20;

}  // namespace

std::int64_t choose_hub_degree(comm::Context& ctx, const LocalGraph& graph, std::int64_t requested) {
  if (ctx.size() == 1 || requested == 0) return 0;
  if (requested > 0) return requested;
  // Vertices by floor(log2(degree)), over all ranks.
  std::array<std::int64_t, 64> at_log{};
  for (std::int64_t v = 0; v < graph.count; ++v) {
    const std::int64_t d = graph.degree(v);
    if (d > 0) ++at_log[static_cast<std::size_t>(63 - __builtin_clzll(static_cast<unsigned long long>(d)))];
  }
  comm::allreduce_inplace(ctx, std::span<std::int64_t>(at_log), comm::Op::sum);
  std::int64_t at_or_above = 0;  // vertices of degree >= 2^b, for b from the top down
  int lowest = 64;               // the lowest b that keeps them within kMaxAutoHubs
  for (int b = 63; b >= 0; --b) {
    at_or_above += at_log[static_cast<std::size_t>(b)];
    if (at_or_above > kMaxAutoHubs) break;
    lowest = b;
  }
  const std::int64_t degree = lowest < 63 ? std::int64_t{1} << lowest : INT64_MAX;
  return std::max(degree, kMinAutoHubDegree);
}

Delegates build_delegates(comm::Context& ctx, const LocalGraph& graph, std::int64_t threshold) {
  Delegates d;
  if (threshold <= 0) return d;
  const int p = ctx.size();
  std::vector<std::int64_t> mine;
  for (std::int64_t v = 0; v < graph.count; ++v)
    if (graph.degree(v) >= threshold) mine.push_back(graph.begin + v);
  const std::vector<std::int64_t> counts = comm::allgather(ctx, static_cast<std::int64_t>(mine.size()));
  std::int64_t total = 0;
  for (const std::int64_t c : counts) total += c;
  if (total > kMaxHubs)
    throw InputError(fmt::format("bfs: hub degree {} makes {} hubs (at most {}): choose a higher degree", threshold,
                                 total, kMaxHubs));
  if (total == 0) return d;

  // Every rank's hubs to every rank: ranks hold consecutive id ranges, so rank order is id order.
  std::vector<std::int64_t> send;
  send.reserve(mine.size() * static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) send.insert(send.end(), mine.begin(), mine.end());
  const std::vector<std::int64_t> send_counts(static_cast<std::size_t>(p), static_cast<std::int64_t>(mine.size()));
  d.hubs = comm::alltoallv(ctx, std::span<const std::int64_t>(send), std::span<const std::int64_t>(send_counts));
  d.threshold = threshold;
  d.first.assign(static_cast<std::size_t>(p) + 1, 0);
  d.word_first.assign(static_cast<std::size_t>(p) + 1, 0);
  for (int r = 0; r < p; ++r) {
    d.first[r + 1] = d.first[r] + counts[r];
    d.word_first[r + 1] = d.word_first[r] + (counts[r] + 63) / 64;
  }

  // Which vertices are hubs, a bit each, for the scan of every owned entry.
  const std::int64_t n = graph.vertices();
  std::vector<std::uint64_t> is_hub(static_cast<std::size_t>((n + 63) / 64), 0);
  for (const std::int64_t h : d.hubs) is_hub[static_cast<std::size_t>(h >> 6)] |= std::uint64_t{1} << (h & 63);
  const auto hub_index = [&](std::int64_t w) {
    return static_cast<std::int64_t>(std::lower_bound(d.hubs.begin(), d.hubs.end(), w) - d.hubs.begin());
  };

  // Two passes over the owned rows, each thread over one contiguous block of them: count the
  // entries per (hub, thread), then place them; targets come out ascending within each hub.
  const std::int64_t hubs = d.count(), nl = graph.count;
  const int team = nl >= (std::int64_t{1} << 15) ? omp_get_max_threads() : 1;
  std::vector<std::int64_t> at(static_cast<std::size_t>(hubs * team), 0);  // [k * team + t]
  const auto rows_of = [&](int t) {
    return std::pair<std::int64_t, std::int64_t>(nl * t / team, nl * (t + 1) / team);
  };
  const auto for_hub_entries = [&](int t, auto&& f) {
    const auto [v0, v1] = rows_of(t);
    for (std::int64_t v = v0; v < v1; ++v)
      for (std::int64_t j = graph.offsets[v]; j < graph.offsets[v + 1]; ++j) {
        const std::int64_t w = graph.columns[j];
        if ((is_hub[static_cast<std::size_t>(w >> 6)] >> (w & 63)) & 1u) f(hub_index(w), v);
      }
  };
#pragma omp parallel num_threads(team)
  for (int t = omp_get_thread_num(); t < team; t += omp_get_num_threads())  // every block, whatever team ran
    for_hub_entries(t, [&](std::int64_t k, std::int64_t) { ++at[static_cast<std::size_t>(k * team + t)]; });
  d.offsets.assign(static_cast<std::size_t>(hubs) + 1, 0);
  std::int64_t sum = 0;
  for (std::int64_t k = 0; k < hubs; ++k) {
    d.offsets[static_cast<std::size_t>(k)] = sum;
    for (int t = 0; t < team; ++t) {
      const std::int64_t c = at[static_cast<std::size_t>(k * team + t)];
      at[static_cast<std::size_t>(k * team + t)] = sum;
      sum += c;
    }
  }
  d.offsets[static_cast<std::size_t>(hubs)] = sum;
  d.targets.resize(static_cast<std::size_t>(sum));
#pragma omp parallel num_threads(team)
  for (int t = omp_get_thread_num(); t < team; t += omp_get_num_threads())
    for_hub_entries(t, [&](std::int64_t k, std::int64_t v) {
      d.targets[static_cast<std::size_t>(at[static_cast<std::size_t>(k * team + t)]++)] = static_cast<std::uint32_t>(v);
    });
  return d;
}

}  // namespace tessera::bfs
