#include "solvers/bfs/graph.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "comm/collectives.hpp"
#include "core/log.hpp"
#include "core/partition.hpp"
#include "core/timer.hpp"
#include "solvers/bfs/omp_failure.hpp"

namespace tessera::bfs {
namespace {

// Below this many items a loop runs on one thread (see cpu/cpu_engine.cpp).
constexpr std::int64_t kParallelItems = std::int64_t{1} << 15;
// Rows within a bucket are stored as uint16: at most 2^16 rows per bucket.
constexpr int kMinBucketShift = 6, kMaxBucketShift = 16;

// About this many entries per bucket: a bucket's arrays (6 bytes an entry with 32-bit ids,
// twice) then fit in a core's L2 cache while its rows are sorted.
constexpr std::int64_t kBucketEntries = std::int64_t{1} << 18;

// log2 of the rows per bucket: the request rounded up to a power of two, or the rows that
// hold about kBucketEntries entries, given the expected entries per row.
int bucket_shift(std::int64_t requested, double entries_per_row) {
  const double want = requested > 0 ? static_cast<double>(requested)
                                     : static_cast<double>(kBucketEntries) / std::max(entries_per_row, 1.0);
  int shift = kMinBucketShift;
  while (shift < kMaxBucketShift && static_cast<double>(std::int64_t{1} << shift) < want) ++shift;
  return shift;
}

// The owner of a vertex by comparing with the ranks' first vertices (no divisions: this runs
// for every entry of the input). Up to 16 ranks it counts the starts at or below v without
// branches (a binary search mispredicts half its branches on random vertices).
class OwnerLookup {
 public:
  explicit OwnerLookup(const VertexPartition& part) {
    for (int r = 1; r < part.parts; ++r) starts_.push_back(part.range(r).begin);
  }
  int operator()(std::int64_t v) const {
    if (starts_.size() <= 16) {
      int r = 0;
      for (const std::int64_t s : starts_) r += v >= s ? 1 : 0;
      return r;
    }
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), v) - starts_.begin());
  }

 private:
  std::vector<std::int64_t> starts_;  // first vertex of ranks 1..p-1
};

// One round's entries owned by this rank, grouped by bucket: bucket b's entries are
// [start[b], start[b + 1]), each a target id and its row's index within the bucket.
template <class Id>
struct Segment {
  std::vector<std::int64_t> start;
  HostArray<Id> target;
  HostArray<std::uint16_t> row;
};

// Groups a round's entries by bucket (a counting sort, per-thread counts then a scatter).
// emit(i, f) calls f(local_row, target) for each entry item i stands for.
template <class Id, class Emit>
Segment<Id> group_round(std::int64_t items, int shift, std::int64_t buckets, const Emit& emit) {
  Segment<Id> seg;
  seg.start.assign(static_cast<std::size_t>(buckets) + 1, 0);
  const std::int64_t mask = (std::int64_t{1} << shift) - 1;
  std::vector<std::int64_t> cursor;  // [thread][bucket]: counts, then write positions
  OmpFailure failure;                 // the allocations below may fail: no exception leaves the region
#pragma omp parallel num_threads(items >= kParallelItems ? omp_get_max_threads() : 1)
  {
    const int team = omp_get_num_threads(), t = omp_get_thread_num();
    const Range mine = block_range(items, team, t);
#pragma omp single
    failure.run([&] { cursor.assign(static_cast<std::size_t>(team) * buckets, 0); });
    std::int64_t* c = failure.failed() ? nullptr : cursor.data() + static_cast<std::size_t>(t) * buckets;
    if (c)
      for (std::int64_t i = mine.begin; i < mine.end(); ++i) emit(i, [&](std::int64_t row, Id) { ++c[row >> shift]; });
#pragma omp barrier
#pragma omp single
    failure.run([&] {
      std::int64_t at = 0;
      for (std::int64_t b = 0; b < buckets; ++b) {
        seg.start[b] = at;
        for (int u = 0; u < team; ++u) {
          std::int64_t& x = cursor[static_cast<std::size_t>(u) * buckets + b];
          const std::int64_t n = x;
          x = at;
          at += n;
        }
      }
      seg.start[buckets] = at;
      seg.target.resize(static_cast<std::size_t>(at));
      seg.row.resize(static_cast<std::size_t>(at));
    });
    if (!failure.failed())
      for (std::int64_t i = mine.begin; i < mine.end(); ++i)
        emit(i, [&](std::int64_t row, Id target) {
          const std::int64_t k = c[row >> shift]++;
          seg.target[k] = target;
          seg.row[k] = static_cast<std::uint16_t>(row & mask);
        });
  }
  failure.rethrow();
  return seg;
}

// Packs both directions of each edge as (source, target) pairs grouped by the owner of the
// source, for alltoallv; counts[r] = Id elements for rank r.
template <class Id>
void pack_by_owner(const OwnerLookup& owner, int p, std::span<const Edge> edges, HostArray<Id>& out,
                   std::vector<std::int64_t>& counts) {
  const auto m = static_cast<std::int64_t>(edges.size());
  std::vector<std::int64_t> cursor;  // [thread][rank]
  counts.assign(p, 0);
  OmpFailure failure;  // the allocations below may fail: no exception leaves the region
#pragma omp parallel num_threads(m >= kParallelItems ? omp_get_max_threads() : 1)
  {
    const int team = omp_get_num_threads(), t = omp_get_thread_num();
    const Range mine = block_range(m, team, t);
#pragma omp single
    failure.run([&] { cursor.assign(static_cast<std::size_t>(team) * p, 0); });
    std::int64_t* c = failure.failed() ? nullptr : cursor.data() + static_cast<std::size_t>(t) * p;
    if (c)
      for (std::int64_t i = mine.begin; i < mine.end(); ++i) {
        ++c[owner(edges[i].u)];
        ++c[owner(edges[i].v)];
      }
#pragma omp barrier
#pragma omp single
    failure.run([&] {
      std::int64_t at = 0;
      for (int r = 0; r < p; ++r) {
        const std::int64_t first = at;
        for (int u = 0; u < team; ++u) {
          std::int64_t& x = cursor[static_cast<std::size_t>(u) * p + r];
          const std::int64_t n = x;
          x = at;
          at += n;
        }
        counts[r] = 2 * (at - first);
      }
      out.resize(static_cast<std::size_t>(2 * at));
    });
    if (!failure.failed())
      for (std::int64_t i = mine.begin; i < mine.end(); ++i) {
        const Edge e = edges[i];
        std::int64_t k = c[owner(e.u)]++;
        out[2 * k] = static_cast<Id>(e.u);
        out[2 * k + 1] = static_cast<Id>(e.v);
        k = c[owner(e.v)]++;
        out[2 * k] = static_cast<Id>(e.v);
        out[2 * k + 1] = static_cast<Id>(e.u);
      }
  }
  failure.rethrow();
}

// Moves `count` entries from `from` down to `to` (to <= from), in parallel where the two
// ranges do not overlap.
void move_down(std::int64_t* base, std::int64_t to, std::int64_t from, std::int64_t count) {
  if (to == from || count == 0) return;
  if (to + count > from || count < kParallelItems) {
    std::memmove(base + to, base + from, static_cast<std::size_t>(count) * sizeof(std::int64_t));
    return;
  }
  constexpr std::int64_t kBlock = std::int64_t{1} << 16;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; i += kBlock)
    std::memcpy(base + to + i, base + from + i, static_cast<std::size_t>(std::min(kBlock, count - i)) * sizeof(std::int64_t));
}

// LSD radix digits over the bits of the largest vertex id: at most 11 bits per pass, so a
// pass's counters stay in L1.
struct Digits {
  int passes = 0, bits = 0;
  explicit Digits(std::int64_t n) {
    int width = 0;
    while (width < 63 && (std::int64_t{1} << width) < n) ++width;
    passes = (width + 10) / 11;
    bits = passes > 0 ? (width + passes - 1) / passes : 0;
  }
  std::int64_t bins() const { return std::int64_t{1} << bits; }
  template <class Id>
  std::int64_t of(Id id, int pass) const {
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(id) >> (pass * bits)) & (bins() - 1));
  }
};

// One bucket's rows, on one thread. Its entries (spread over the rounds' segments) are
// sorted by target with a stable LSD radix sort, then scattered by row (stable again), so
// every row comes out sorted; repeats and the self-loop are then dropped in place. Writes
// the rows packed from `out`, their degrees into degree[] and input degrees into
// input_degree[]; returns the entries kept.
template <class Id>
class BucketBuilder {
 public:
  explicit BucketBuilder(const Digits& digits) : digits_(digits) {}

  std::int64_t build(const std::vector<Segment<Id>>& rounds, std::int64_t b, std::int64_t rows, std::int64_t first_id,
                     std::int64_t* out, std::int64_t* degree, std::int64_t* input_degree) {
    const int passes = digits_.passes;
    const std::int64_t bins = digits_.bins();
    // Counts of every digit and of every row, in one read of the segments.
    hist_.assign(static_cast<std::size_t>(passes * bins), 0);
    row_at_.assign(static_cast<std::size_t>(rows) + 1, 0);
    std::int64_t entries = 0;
    for (const Segment<Id>& s : rounds)
      for (std::int64_t k = s.start[b]; k < s.start[b + 1]; ++k) {
        for (int d = 0; d < passes; ++d) ++hist_[d * bins + digits_.of(s.target[k], d)];
        ++row_at_[s.row[k] + 1];
        ++entries;
      }
    for (std::int64_t r = 0; r < rows; ++r) {
      input_degree[r] = row_at_[r + 1];
      row_at_[r + 1] += row_at_[r];
    }
    if (entries == 0) {
      std::fill_n(degree, rows, 0);
      return 0;
    }
    for (int d = 0; d < passes; ++d) {
      std::int64_t at = 0;
      for (std::int64_t x = 0; x < bins; ++x) {
        const std::int64_t n = hist_[d * bins + x];
        hist_[d * bins + x] = at;
        at += n;
      }
    }
    for (auto& a : target_) a.resize(static_cast<std::size_t>(entries));
    for (auto& a : row_) a.resize(static_cast<std::size_t>(entries));

    // Digit passes: the first reads the segments, the others ping-pong between two buffers.
    const Id* target = nullptr;
    const std::uint16_t* row = nullptr;
    if (passes == 0) {
      std::int64_t at = 0;
      for (const Segment<Id>& s : rounds)
        for (std::int64_t k = s.start[b]; k < s.start[b + 1]; ++k, ++at) {
          target_[0][at] = s.target[k];
          row_[0][at] = s.row[k];
        }
    }
    for (int d = 0; d < passes; ++d) {
      std::int64_t* pos = hist_.data() + d * bins;
      Id* to_target = target_[d & 1].data();
      std::uint16_t* to_row = row_[d & 1].data();
      auto scatter = [&](const Id* t, const std::uint16_t* r, std::int64_t first, std::int64_t last) {
        for (std::int64_t k = first; k < last; ++k) {
          const std::int64_t at = pos[digits_.of(t[k], d)]++;
          to_target[at] = t[k];
          to_row[at] = r[k];
        }
      };
      if (d == 0)
        for (const Segment<Id>& s : rounds) scatter(s.target.data(), s.row.data(), s.start[b], s.start[b + 1]);
      else
        scatter(target, row, 0, entries);
      target = to_target;
      row = to_row;
    }
    if (passes == 0) {
      target = target_[0].data();
      row = row_[0].data();
    }

    // Stable scatter by row: each row's targets arrive in increasing order.
    for (std::int64_t k = 0; k < entries; ++k) out[row_at_[row[k]]++] = static_cast<std::int64_t>(target[k]);
    // Now row_at_[r] is where row r ends. Repeats are adjacent; compact in place.
    std::int64_t kept = 0, row_start = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t self = first_id + r, row_kept = kept;
      for (std::int64_t k = row_start; k < row_at_[r]; ++k) {
        const std::int64_t w = out[k];
        if (w != self && (kept == row_kept || out[kept - 1] != w)) out[kept++] = w;
      }
      row_start = row_at_[r];
      degree[r] = kept - row_kept;
    }
    return kept;
  }

 private:
  const Digits& digits_;
  std::vector<std::int64_t> hist_, row_at_;
  HostArray<Id> target_[2];
  HostArray<std::uint16_t> row_[2];
};

// The rows of every bucket (BucketBuilder, buckets in parallel), each written from the
// bucket's raw start in columns; then the buckets are packed together in order and the row
// offsets computed.
template <class Id>
void build_rows(LocalGraph& g, const std::vector<Segment<Id>>& rounds, int shift, std::int64_t buckets) {
  const std::int64_t nl = g.count;
  std::vector<std::int64_t> raw(static_cast<std::size_t>(buckets) + 1, 0);  // bucket starts before packing
  for (std::int64_t b = 0; b < buckets; ++b)
    for (const Segment<Id>& s : rounds) raw[b + 1] += s.start[b + 1] - s.start[b];
  for (std::int64_t b = 0; b < buckets; ++b) raw[b + 1] += raw[b];
  g.input_degree.resize(static_cast<std::size_t>(nl));
  g.offsets.resize(static_cast<std::size_t>(nl) + 1);
  g.columns.resize(static_cast<std::size_t>(raw[buckets]));
  std::vector<std::int64_t> kept(static_cast<std::size_t>(buckets) + 1, 0);
  const Digits digits(g.vertices());

  OmpFailure failure;  // a builder's buffers may fail to allocate: no exception leaves the region
#pragma omp parallel if (buckets > 1 && raw[buckets] >= kParallelItems)
  {
    BucketBuilder<Id> builder(digits);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < buckets; ++b) {
      const std::int64_t first_row = b << shift;
      const std::int64_t rows = std::min(std::int64_t{1} << shift, nl - first_row);
      // The degrees go to offsets[] until the offsets are known.
      failure.run([&] {
        kept[b + 1] = builder.build(rounds, b, rows, g.begin + first_row, g.columns.data() + raw[b],
                                    g.offsets.data() + first_row, g.input_degree.data() + first_row);
      });
    }
  }
  failure.rethrow();
  for (std::int64_t b = 0; b < buckets; ++b) kept[b + 1] += kept[b];

  // Buckets move down in order, so each move overwrites only entries already moved or dropped.
  for (std::int64_t b = 0; b < buckets; ++b) move_down(g.columns.data(), kept[b], raw[b], kept[b + 1] - kept[b]);
  g.columns.resize(static_cast<std::size_t>(kept[buckets]));  // keeps the capacity: no copy
#pragma omp parallel for schedule(static) if (nl >= kParallelItems)
  for (std::int64_t b = 0; b < buckets; ++b) {
    std::int64_t at = kept[b];
    const std::int64_t end = std::min((b + 1) << shift, nl);
    for (std::int64_t v = b << shift; v < end; ++v) {
      const std::int64_t d = g.offsets[v];
      g.offsets[v] = at;
      at += d;
    }
  }
  g.offsets[nl] = kept[buckets];
}

// The build on one rank with ids of type Id (uint32 where every id fits). `ctx` is null for
// a serial build (one part, no collectives).
template <class Id>
LocalGraph build_typed(comm::Context* ctx, const EdgeSource& source, const VertexPartition& part, int rank,
                       std::int64_t chunk_edges, std::int64_t bucket_rows) {
  LocalGraph g;
  g.partition = part;
  g.rank = rank;
  const Range own = part.range(rank);
  g.begin = own.begin;
  g.count = own.count;
  const int p = part.parts;
  const std::int64_t local = source.local_edges();
  // Every rank generates or reads about as many edges as the others and owns about as many
  // vertices: 2 * local / count entries per row here.
  const int shift = bucket_shift(bucket_rows, g.count > 0 ? 2.0 * static_cast<double>(local) / g.count : 1.0);
  const std::int64_t buckets = (g.count + (std::int64_t{1} << shift) - 1) >> shift;
  const std::int64_t begin = g.begin;

  chunk_edges = std::max<std::int64_t>(chunk_edges, 1);
  std::int64_t rounds = (local + chunk_edges - 1) / chunk_edges;
  if (ctx && p > 1) rounds = comm::allreduce(*ctx, rounds, comm::Op::max);
  const OwnerLookup owner(part);
  std::vector<Segment<Id>> segments;
  segments.reserve(static_cast<std::size_t>(rounds));
  std::vector<Edge> chunk;
  HostArray<Id> packed;
  std::vector<std::int64_t> counts;
  std::int64_t self_loops = 0;
  double generate = 0, exchange = 0, group = 0;  // seconds, for the debug log
  for (std::int64_t round = 0; round < rounds; ++round) {
    HostTimer timer;
    const std::int64_t first = std::min(round * chunk_edges, local);
    const std::int64_t count = std::min(chunk_edges, local - first);
    chunk.resize(static_cast<std::size_t>(count));
    source.fill(first, chunk);
    std::int64_t loops = 0;
#pragma omp parallel for schedule(static) reduction(+ : loops) if (count >= kParallelItems)
    for (std::int64_t i = 0; i < count; ++i) loops += chunk[i].u == chunk[i].v ? 1 : 0;
    self_loops += loops;
    generate += timer.seconds();
    timer.reset();
    if (p == 1) {
      segments.push_back(group_round<Id>(count, shift, buckets, [&](std::int64_t i, auto&& f) {
        f(chunk[i].u, static_cast<Id>(chunk[i].v));
        f(chunk[i].v, static_cast<Id>(chunk[i].u));
      }));
    } else {
      pack_by_owner<Id>(owner, p, chunk, packed, counts);
      const std::vector<Id> in = comm::alltoallv<Id>(*ctx, std::span<const Id>(packed.data(), packed.size()), counts);
      exchange += timer.seconds();
      timer.reset();
      segments.push_back(group_round<Id>(static_cast<std::int64_t>(in.size() / 2), shift, buckets,
                                         [&](std::int64_t i, auto&& f) {
                                           f(static_cast<std::int64_t>(in[2 * i]) - begin, in[2 * i + 1]);
                                         }));
    }
    group += timer.seconds();
  }
  chunk = {};
  packed = {};
  HostTimer timer;
  build_rows<Id>(g, segments, shift, buckets);
  segments = {};
  log::debug("graph build, rank 0 of {}: {} rounds, {} buckets of {} rows, {} threads: generate {:.2f} s, "
             "exchange {:.2f} s, group {:.2f} s, rows {:.2f} s",
             p, rounds, buckets, std::int64_t{1} << shift, omp_get_max_threads(), generate, exchange, group,
             timer.seconds());
  std::int64_t totals[3] = {local, self_loops, g.local_entries()};
  if (ctx && p > 1) comm::allreduce_inplace(*ctx, std::span<std::int64_t>(totals, 3), comm::Op::sum);
  g.input_edges = totals[0];
  g.self_loops = totals[1];
  g.directed_edges = totals[2];
  return g;
}

// Ids fit in 32 bits up to 2^32 vertices: half the bytes to exchange, group and sort.
bool small_ids(const VertexPartition& part) { return part.n <= (std::int64_t{1} << 32); }

// An edge list already in memory, for the serial build.
class SpanEdgeSource final : public EdgeSource {
 public:
  SpanEdgeSource(std::int64_t n, std::span<const Edge> edges) : n_(n), edges_(edges) {}
  std::int64_t vertices() const override { return n_; }
  std::int64_t local_edges() const override { return static_cast<std::int64_t>(edges_.size()); }
  void fill(std::int64_t first, std::span<Edge> out) const override {
    std::copy_n(edges_.begin() + first, out.size(), out.begin());
  }

 private:
  std::int64_t n_;
  std::span<const Edge> edges_;
};

}  // namespace

LocalGraph build_graph(comm::Context& ctx, const EdgeSource& source, std::int64_t chunk_edges,
                       std::int64_t bucket_rows) {
  const VertexPartition part{source.vertices(), ctx.size()};
  return small_ids(part) ? build_typed<std::uint32_t>(&ctx, source, part, ctx.rank(), chunk_edges, bucket_rows)
                         : build_typed<std::int64_t>(&ctx, source, part, ctx.rank(), chunk_edges, bucket_rows);
}

void narrow_columns(const LocalGraph& g, std::int64_t first, std::span<std::uint32_t> out) {
  const auto n = static_cast<std::int64_t>(out.size());
  const std::int64_t* in = g.columns.data() + first;
#pragma omp parallel for schedule(static) if (n >= kParallelItems)
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<std::uint32_t>(in[i]);
}

LocalGraph build_serial_graph(std::int64_t n, std::span<const Edge> edges) {
  const VertexPartition part{n, 1};
  const SpanEdgeSource source(n, edges);
  constexpr std::int64_t kChunk = std::int64_t{1} << 22;
  return small_ids(part) ? build_typed<std::uint32_t>(nullptr, source, part, 0, kChunk, 0)
                         : build_typed<std::int64_t>(nullptr, source, part, 0, kChunk, 0);
}

comm::MemoryNeed graph_memory(double vertices, double edges, double ranks, bool cuda) {
  const double host = 2 * edges / ranks * 8 + vertices / ranks * 16;
  return {host, cuda ? 2 * edges / ranks * 4 + vertices / 8 : 0};
}

}  // namespace tessera::bfs
