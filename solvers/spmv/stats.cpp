#include "solvers/spmv/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "comm/collectives.hpp"

namespace tessera::spmv {

Variant choose_variant(Variant requested, Backend backend, const MatrixStats& s) {
  if (requested != Variant::automatic) return requested;
  if (backend != Backend::cuda) return Variant::csr_scalar;
  const double nnz = static_cast<double>(s.nnz);
  const double padding = static_cast<double>(s.hybrid.ell_slots - s.hybrid.ell_entries);
  const bool nearly_ell = static_cast<double>(s.hybrid.coo_entries) <= 0.1 * nnz && padding <= 0.5 * nnz;
  return nearly_ell ? Variant::hybrid : Variant::csr_binned;
}

std::int64_t global_hybrid_width(comm::Context& ctx, std::span<const std::int64_t> lengths, HybridRule rule) {
  const std::int64_t rows = comm::allreduce(ctx, static_cast<std::int64_t>(lengths.size()), comm::Op::sum);
  if (rows == 0) return 0;
  std::int64_t longest = 0;
  for (std::int64_t len : lengths) longest = std::max(longest, len);
  longest = comm::allreduce(ctx, longest, comm::Op::max);
  // The same quantiles as hybrid_width, found by bisection over the length with a global count
  // per probe.
  auto count = [&](auto&& pred) {
    std::int64_t c = 0;
    for (std::int64_t len : lengths) c += pred(len) ? 1 : 0;
    return comm::allreduce(ctx, c, comm::Op::sum);
  };
  std::int64_t lo = 0, hi = longest;
  if (rule == HybridRule::third) {
    const std::int64_t need = (rows + 2) / 3;  // the widest w with >= ceil(rows / 3) rows reaching it
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (count([&](std::int64_t len) { return len >= mid; }) >= need)
        lo = mid;
      else
        hi = mid - 1;
    }
  } else {
    const std::int64_t need = (4 * rows + 4) / 5;  // the narrowest w holding >= ceil(0.8 rows) rows
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (count([&](std::int64_t len) { return len <= mid; }) >= need)
        hi = mid;
      else
        lo = mid + 1;
    }
  }
  return lo;
}

template <class T>
MatrixStats matrix_stats(comm::Context& ctx, const DistMatrix<T>& m, HybridRule rule) {
  MatrixStats s;
  s.rows = m.rows;
  s.cols = m.cols;
  s.nnz = m.nnz;
  s.rule = rule;
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(m.my_rows.count));
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0, empty = 0;
  for (std::int64_t r = 0; r < m.my_rows.count; ++r) {
    lengths[r] = (m.local.row_ptr[r + 1] - m.local.row_ptr[r]) + (m.ghost.row_ptr[r + 1] - m.ghost.row_ptr[r]);
    lo = std::min(lo, lengths[r]);
    hi = std::max(hi, lengths[r]);
    empty += lengths[r] == 0 ? 1 : 0;
  }
  s.row_min = s.rows > 0 ? comm::allreduce(ctx, lo, comm::Op::min) : 0;
  s.row_max = comm::allreduce(ctx, hi, comm::Op::max);
  s.empty_rows = comm::allreduce(ctx, empty, comm::Op::sum);
  s.row_mean = s.rows > 0 ? static_cast<double>(s.nnz) / static_cast<double>(s.rows) : 0.0;

  s.hybrid.width = global_hybrid_width(ctx, lengths, rule);
  const HybridSplit mine = hybrid_split(lengths, s.hybrid.width);
  std::int64_t sums[4] = {mine.ell_entries, mine.ell_slots, mine.coo_entries, mine.coo_rows};
  comm::allreduce_inplace(ctx, std::span<std::int64_t>(sums, 4), comm::Op::sum);
  s.hybrid.ell_entries = sums[0];
  s.hybrid.ell_slots = sums[1];
  s.hybrid.coo_entries = sums[2];
  s.hybrid.coo_rows = sums[3];

  const std::int64_t width = hybrid_width(row_lengths(m.local), rule);
  s.local_width_min = comm::allreduce(ctx, width, comm::Op::min);
  s.local_width_max = comm::allreduce(ctx, width, comm::Op::max);
  const std::int64_t nnz = m.local.nnz() + m.ghost.nnz();
  s.rank_nnz_min = comm::allreduce(ctx, nnz, comm::Op::min);
  s.rank_nnz_max = comm::allreduce(ctx, nnz, comm::Op::max);
  const auto ghosts = static_cast<std::int64_t>(m.ghost_cols.size());
  s.ghosts = comm::allreduce(ctx, ghosts, comm::Op::sum);
  s.ghosts_max = comm::allreduce(ctx, ghosts, comm::Op::max);
  return s;
}

std::string MatrixStats::describe() const {
  return fmt::format(
      "{} x {}, {} nonzeros; row lengths {}..{} (mean {:.2f}, {} empty); hybrid ({}): ELL width {} holds {} nonzeros "
      "in {} slots ({:.1f}% padding), COO tail {} nonzeros in {} rows; local blocks' widths {}..{}; nonzeros per rank "
      "{}..{}; ghost columns {} (at most {} on a rank)",
      rows, cols, nnz, row_min, row_max, row_mean, empty_rows, to_string(rule), hybrid.width, hybrid.ell_entries,
      hybrid.ell_slots,
      hybrid.ell_slots > 0 ? 100.0 * static_cast<double>(hybrid.ell_slots - hybrid.ell_entries) / hybrid.ell_slots : 0.0,
      hybrid.coo_entries, hybrid.coo_rows, local_width_min, local_width_max, rank_nnz_min, rank_nnz_max, ghosts,
      ghosts_max);
}

template MatrixStats matrix_stats<float>(comm::Context&, const DistMatrix<float>&, HybridRule);
template MatrixStats matrix_stats<double>(comm::Context&, const DistMatrix<double>&, HybridRule);

}  // namespace tessera::spmv
