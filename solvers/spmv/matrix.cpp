#include "solvers/spmv/matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "comm/collectives.hpp"
#include "core/error.hpp"
#include "io/agree.hpp"
#include "io/checksum.hpp"
#include "solvers/spmv/random.hpp"

namespace tessera::spmv {

RowBlock<double> assemble_rows(std::int64_t first_row, std::int64_t rows, const Triplets& t) {
  const auto n = static_cast<std::int64_t>(t.size());
  // A stable counting sort by row keeps the given order inside each row.
  std::vector<std::int64_t> start(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t r = t.row[k] - first_row;
    if (r < 0 || r >= rows)
      throw std::logic_error(fmt::format("assemble_rows: row {} outside [{}, {})", t.row[k], first_row, first_row + rows));
    ++start[r + 1];
  }
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    for (std::int64_t k = 0; k < n; ++k) order[fill[t.row[k] - first_row]++] = k;
  }
  // Each row by column (stable: repeats stay in the given order), then repeats summed.
  std::vector<std::int64_t> unique(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < rows; ++r) {
    auto* b = order.data() + start[r];
    auto* e = order.data() + start[r + 1];
    std::stable_sort(b, e, [&](std::int64_t a, std::int64_t c) { return t.col[a] < t.col[c]; });
    std::int64_t u = 0;
    for (auto* p = b; p < e; ++p)
      if (p == b || t.col[*p] != t.col[*(p - 1)]) ++u;
    unique[r + 1] = u;
  }
  RowBlock<double> out;
  out.first_row = first_row;
  out.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  std::partial_sum(unique.begin(), unique.end(), out.row_ptr.begin());
  out.col.resize(static_cast<std::size_t>(out.row_ptr.back()));
  out.val.resize(out.col.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t at = out.row_ptr[r] - 1;
    for (std::int64_t q = start[r]; q < start[r + 1]; ++q) {
      const std::int64_t k = order[q];
      if (q == start[r] || t.col[k] != t.col[order[q - 1]]) {
        ++at;
        out.col[at] = t.col[k];
        out.val[at] = t.val[k];
      } else {
        out.val[at] += t.val[k];
      }
    }
  }
  return out;
}

int Partition::owner(std::int64_t i) const {
  const auto it = std::upper_bound(starts.begin(), starts.end(), i);
  return static_cast<int>(it - starts.begin()) - 1;
}

Partition uniform_partition(std::int64_t n, int parts) {
  Partition p;
  p.starts.resize(static_cast<std::size_t>(parts) + 1);
  for (int r = 0; r < parts; ++r) p.starts[r] = block_range(n, parts, r).begin;
  p.starts[parts] = n;
  return p;
}

Partition balanced_partition(comm::Context& ctx, std::int64_t n, std::span<const std::int64_t> lengths) {
  const int parts = ctx.size();
  const Range mine = block_range(n, parts, ctx.rank());
  if (static_cast<std::int64_t>(lengths.size()) != mine.count)
    throw std::logic_error(fmt::format("balanced_partition: {} lengths for a block of {} rows", lengths.size(), mine.count));
  std::int64_t local = 0;
  for (std::int64_t len : lengths) local += len + 1;
  const std::int64_t before = comm::exscan(ctx, local);
  const std::int64_t total = comm::allreduce(ctx, local, comm::Op::sum);
  // Rank r starts at the first row i whose preceding weight W(i) reaches r * total / P. The
  // rank whose block holds that crossing finds it; the others leave 0 for the max below.
  std::vector<std::int64_t> starts(static_cast<std::size_t>(parts) + 1, 0);
  std::int64_t w = before;  // W(mine.begin + i) in the loop
  std::int64_t i = 0;
  for (int r = 1; r < parts; ++r) {
    const auto target = static_cast<std::int64_t>(static_cast<__int128>(r) * total / parts);
    if (target <= before || target > before + local) continue;
    while (w + lengths[i] + 1 < target) w += lengths[i++] + 1;
    starts[r] = mine.begin + i + 1;  // W(mine.begin + i) < target <= W(mine.begin + i + 1)
  }
  comm::allreduce_inplace(ctx, std::span<std::int64_t>(starts), comm::Op::max);
  starts[parts] = n;
  for (int r = 1; r <= parts; ++r) starts[r] = std::max(starts[r], starts[r - 1]);
  Partition p;
  p.starts = std::move(starts);
  return p;
}

RowBlock<double> distribute(comm::Context& ctx, const Triplets& t, const Partition& part) {
  const int parts = ctx.size();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(parts), 0);
  std::vector<int> owner(t.size());
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t.row[k] < 0 || t.row[k] >= part.size())
      throw std::logic_error(fmt::format("distribute: row {} outside [0, {})", t.row[k], part.size()));
    owner[k] = part.owner(t.row[k]);
    ++counts[owner[k]];
  }
  std::vector<std::int64_t> at(static_cast<std::size_t>(parts), 0);
  std::exclusive_scan(counts.begin(), counts.end(), at.begin(), std::int64_t{0});
  Triplets send;
  send.row.resize(t.size());
  send.col.resize(t.size());
  send.val.resize(t.size());
  for (std::size_t k = 0; k < t.size(); ++k) {  // stable: each rank's entries keep their order
    const std::int64_t q = at[owner[k]]++;
    send.row[q] = t.row[k];
    send.col[q] = t.col[k];
    send.val[q] = t.val[k];
  }
  Triplets got;
  got.row = comm::alltoallv<std::int64_t>(ctx, send.row, counts);
  got.col = comm::alltoallv<std::int64_t>(ctx, send.col, counts);
  got.val = comm::alltoallv<double>(ctx, send.val, counts);
  const Range mine = part.range(ctx.rank());
  return assemble_rows(mine.begin, mine.count, got);
}

RowBlock<double> redistribute(comm::Context& ctx, const RowBlock<double>& rows, const Partition& part) {
  Triplets t;
  t.row.resize(static_cast<std::size_t>(rows.nnz()));
  t.col = rows.col;
  t.val = rows.val;
  for (std::int64_t r = 0; r < rows.rows(); ++r)
    for (std::int64_t k = rows.row_ptr[r]; k < rows.row_ptr[r + 1]; ++k) t.row[k] = rows.first_row + r;
  return distribute(ctx, t, part);
}

Partition column_partition(const Partition& rows, std::int64_t cols) {
  return rows.size() == cols ? rows : uniform_partition(cols, rows.parts());
}

template <class T>
DistMatrix<T> make_distributed(comm::Context& ctx, const RowBlock<double>& rows, const Partition& row_part,
                               std::int64_t cols, std::string description) {
  DistMatrix<T> m;
  m.rows = row_part.size();
  m.cols = cols;
  m.row_part = row_part;
  m.col_part = column_partition(row_part, cols);
  m.my_rows = row_part.range(ctx.rank());
  m.my_cols = m.col_part.range(ctx.rank());
  m.description = std::move(description);
  if (rows.rows() != m.my_rows.count || (m.my_rows.count > 0 && rows.first_row != m.my_rows.begin))
    throw std::logic_error("make_distributed: the rows are not this rank's rows of the partition");
  const std::int64_t c0 = m.my_cols.begin, c1 = m.my_cols.end();
  for (std::int64_t j : rows.col)
    if (j < c0 || j >= c1) m.ghost_cols.push_back(j);
  std::sort(m.ghost_cols.begin(), m.ghost_cols.end());
  m.ghost_cols.erase(std::unique(m.ghost_cols.begin(), m.ghost_cols.end()), m.ghost_cols.end());
  io::agree_input(ctx, [&] {
    constexpr std::int64_t limit = std::numeric_limits<local_index>::max();
    const auto ghosts = static_cast<std::int64_t>(m.ghost_cols.size());
    if (m.my_rows.count > limit || m.my_cols.count > limit || ghosts > limit)
      throw InputError(fmt::format("{}: rank {} holds {} rows, {} columns and {} ghost columns; a rank's blocks use "
                                   "32-bit column indices (at most {}): run on more ranks",
                                   m.description, ctx.rank(), m.my_rows.count, m.my_cols.count, ghosts, limit));
  });

  m.local.rows = m.ghost.rows = m.my_rows.count;
  m.local.cols = m.my_cols.count;
  m.ghost.cols = static_cast<std::int64_t>(m.ghost_cols.size());
  m.local.row_ptr.assign(1, 0);
  m.ghost.row_ptr.assign(1, 0);
  for (std::int64_t r = 0; r < rows.rows(); ++r) {
    for (std::int64_t k = rows.row_ptr[r]; k < rows.row_ptr[r + 1]; ++k) {
      const std::int64_t j = rows.col[k];
      if (j >= c0 && j < c1) {
        m.local.col.push_back(static_cast<local_index>(j - c0));
        m.local.val.push_back(static_cast<T>(rows.val[k]));
      } else {
        const auto g = std::lower_bound(m.ghost_cols.begin(), m.ghost_cols.end(), j) - m.ghost_cols.begin();
        m.ghost.col.push_back(static_cast<local_index>(g));
        m.ghost.val.push_back(static_cast<T>(rows.val[k]));
      }
    }
    m.local.row_ptr.push_back(static_cast<std::int64_t>(m.local.col.size()));
    m.ghost.row_ptr.push_back(static_cast<std::int64_t>(m.ghost.col.size()));
  }
  m.nnz = comm::allreduce(ctx, rows.nnz(), comm::Op::sum);

  // The plan: ghosts are sorted, so each owner's columns are one run of ghost_cols. Every
  // owner learns which of its entries each rank needs.
  const int parts = ctx.size();
  GhostPlan& p = m.plan;
  p.recv_counts.assign(static_cast<std::size_t>(parts), 0);
  for (std::int64_t j : m.ghost_cols) ++p.recv_counts[m.col_part.owner(j)];
  p.recv_offsets.assign(static_cast<std::size_t>(parts), 0);
  std::exclusive_scan(p.recv_counts.begin(), p.recv_counts.end(), p.recv_offsets.begin(), std::int64_t{0});
  const std::vector<std::int64_t> wanted = comm::alltoallv<std::int64_t>(ctx, m.ghost_cols, p.recv_counts, &p.send_counts);
  p.send_offsets.assign(static_cast<std::size_t>(parts), 0);
  std::exclusive_scan(p.send_counts.begin(), p.send_counts.end(), p.send_offsets.begin(), std::int64_t{0});
  p.send_index.resize(wanted.size());
  for (std::size_t k = 0; k < wanted.size(); ++k) {
    if (wanted[k] < c0 || wanted[k] >= c1)
      throw std::logic_error(fmt::format("ghost plan: rank {} was asked for column {} outside its [{}, {})", ctx.rank(),
                                         wanted[k], c0, c1));
    p.send_index[k] = static_cast<local_index>(wanted[k] - c0);
  }
  return m;
}

template <class T>
RowBlock<T> global_rows(const DistMatrix<T>& m) {
  RowBlock<T> out;
  out.first_row = m.my_rows.begin;
  out.row_ptr.assign(1, 0);
  out.col.reserve(static_cast<std::size_t>(m.local.nnz() + m.ghost.nnz()));
  out.val.reserve(out.col.capacity());
  const std::int64_t c0 = m.my_cols.begin;
  for (std::int64_t r = 0; r < m.my_rows.count; ++r) {
    std::int64_t a = m.local.row_ptr[r], b = m.ghost.row_ptr[r];
    const std::int64_t ae = m.local.row_ptr[r + 1], be = m.ghost.row_ptr[r + 1];
    while (a < ae || b < be) {
      const std::int64_t ja = a < ae ? c0 + m.local.col[a] : std::numeric_limits<std::int64_t>::max();
      const std::int64_t jb = b < be ? m.ghost_cols[m.ghost.col[b]] : std::numeric_limits<std::int64_t>::max();
      if (ja < jb) {
        out.col.push_back(ja);
        out.val.push_back(m.local.val[a++]);
      } else {
        out.col.push_back(jb);
        out.val.push_back(m.ghost.val[b++]);
      }
    }
    out.row_ptr.push_back(static_cast<std::int64_t>(out.col.size()));
  }
  return out;
}

template <class T>
std::vector<T> diagonal(const DistMatrix<T>& m) {
  if (!m.square()) throw std::logic_error("diagonal: the matrix is not square");
  std::vector<T> d(static_cast<std::size_t>(m.my_rows.count), T(0));
  // Square: rows and columns share the partition, so row i's diagonal is local column i.
  for (std::int64_t r = 0; r < m.my_rows.count; ++r) {
    const auto b = m.local.col.begin() + m.local.row_ptr[r], e = m.local.col.begin() + m.local.row_ptr[r + 1];
    const auto it = std::lower_bound(b, e, static_cast<local_index>(r));
    if (it != e && *it == r) d[r] = m.local.val[it - m.local.col.begin()];
  }
  return d;
}

template <class T>
std::uint64_t matrix_checksum(comm::Context& ctx, const DistMatrix<T>& m) {
  const RowBlock<T> g = global_rows(m);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(g.rows()));
  for (std::int64_t r = 0; r < g.rows(); ++r) lengths[r] = g.row_ptr[r + 1] - g.row_ptr[r];
  const std::int64_t first = comm::exscan(ctx, g.nnz());
  const std::uint64_t a = io::checksum_global(ctx, io::checksum_local<std::int64_t>(lengths, g.first_row));
  const std::uint64_t b = io::checksum_global(ctx, io::checksum_local<std::int64_t>(g.col, first));
  const std::uint64_t c = io::checksum_global(ctx, io::checksum_local<T>(g.val, first));
  return mix64(mix64(mix64(static_cast<std::uint64_t>(m.rows)) ^ static_cast<std::uint64_t>(m.cols)) + a) ^
         mix64(b + 1) ^ mix64(mix64(c + 2));
}

#define TESSERA_SPMV_INSTANTIATE(T)                                                                          \
  template DistMatrix<T> make_distributed<T>(comm::Context&, const RowBlock<double>&, const Partition&,    \
                                             std::int64_t, std::string);                                     \
  template RowBlock<T> global_rows<T>(const DistMatrix<T>&);                                                 \
  template std::vector<T> diagonal<T>(const DistMatrix<T>&);                                                 \
  template std::uint64_t matrix_checksum<T>(comm::Context&, const DistMatrix<T>&);
TESSERA_SPMV_INSTANTIATE(float)
TESSERA_SPMV_INSTANTIATE(double)
#undef TESSERA_SPMV_INSTANTIATE

}  // namespace tessera::spmv
