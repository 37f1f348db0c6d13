#include "solvers/spmv/formats.hpp"

#include <algorithm>
#include <stdexcept>

namespace tessera::spmv {

std::int64_t hybrid_width(std::span<const std::int64_t> lengths, HybridRule rule) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  if (rows == 0) return 0;
  std::vector<std::int64_t> sorted(lengths.begin(), lengths.end());
  // third: the ceil(rows / 3)-th longest row: at least a third of the rows reach its length,
  // fewer than a third reach one more. percentile80: the ceil(0.8 rows)-th shortest.
  const std::int64_t at = rule == HybridRule::third ? rows - (rows + 2) / 3 : (4 * rows + 4) / 5 - 1;
  std::nth_element(sorted.begin(), sorted.begin() + at, sorted.end());
  return sorted[at];
}

HybridSplit hybrid_split(std::span<const std::int64_t> lengths, std::int64_t width) {
  HybridSplit s;
  s.width = width;
  s.ell_slots = width * static_cast<std::int64_t>(lengths.size());
  for (std::int64_t len : lengths) {
    s.ell_entries += std::min(len, width);
    if (len > width) {
      s.coo_entries += len - width;
      ++s.coo_rows;
    }
  }
  return s;
}

template <class T>
std::vector<std::int64_t> row_lengths(const CsrBlock<T>& a) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(a.rows));
  for (std::int64_t r = 0; r < a.rows; ++r) out[r] = a.row_ptr[r + 1] - a.row_ptr[r];
  return out;
}

int binned_lanes(std::span<const std::int64_t> lengths) {
  if (lengths.empty()) return 2;
  double total = 0;
  for (const std::int64_t n : lengths) total += static_cast<double>(n);
  const double fifth = total / static_cast<double>(lengths.size()) / 5.0;
  int lanes = 2;
  while (lanes < 32 && lanes < fifth) lanes *= 2;
  return lanes;
}

BinnedFormat make_binned(std::span<const std::int64_t> lengths, int lanes) {
  BinnedFormat f;
  f.lanes = lanes > 0 ? lanes : binned_lanes(lengths);
  if (f.lanes < 1 || f.lanes > 32 || (f.lanes & (f.lanes - 1)) != 0)
    throw std::invalid_argument("make_binned: lanes must be a power of two from 1 to 32");
  f.long_row = std::int64_t{kBinnedRounds} * f.lanes;
  f.chunk_ptr.push_back(0);
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    if (lengths[r] <= f.long_row) continue;
    const std::int64_t chunks = (lengths[r] + kBinnedChunk - 1) / kBinnedChunk;
    const auto k = static_cast<local_index>(f.long_rows.size());
    f.long_rows.push_back(static_cast<local_index>(r));
    f.chunk_ptr.push_back(f.chunk_ptr.back() + chunks);
    f.chunk_owner.insert(f.chunk_owner.end(), static_cast<std::size_t>(chunks), k);
  }
  return f;
}

template <class T>
int column_bands(const CsrBlock<T>& a) {
  const std::int64_t band_cols = kBandBytes / static_cast<std::int64_t>(sizeof(T));
  if (a.cols <= band_cols || a.nnz() == 0) return 1;
  std::int64_t wide = 0;  // nonzeros in rows spanning more than a band
  for (std::int64_t r = 0; r < a.rows; ++r) {
    const std::int64_t b = a.row_ptr[r], e = a.row_ptr[r + 1];
    if (e - b < 2) continue;
    const auto [lo, hi] = std::minmax_element(a.col.begin() + b, a.col.begin() + e);
    if (*hi - *lo > band_cols) wide += e - b;
  }
  if (2 * wide < a.nnz()) return 1;
  return static_cast<int>((a.cols + band_cols - 1) / band_cols);
}

template <class T>
std::vector<CsrBlock<T>> split_column_bands(const CsrBlock<T>& a, int bands, std::vector<std::int64_t>& begin) {
  if (bands < 1) throw std::invalid_argument("split_column_bands: at least one band");
  const std::int64_t width = (a.cols + bands - 1) / bands;
  begin.assign(static_cast<std::size_t>(bands) + 1, 0);
  for (int k = 0; k <= bands; ++k) begin[k] = std::min(a.cols, k * width);
  std::vector<CsrBlock<T>> out(static_cast<std::size_t>(bands));
  for (int k = 0; k < bands; ++k) {
    out[k].rows = a.rows;
    out[k].cols = begin[k + 1] - begin[k];
    out[k].row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  }
  for (std::int64_t r = 0; r < a.rows; ++r)
    for (std::int64_t q = a.row_ptr[r]; q < a.row_ptr[r + 1]; ++q) ++out[a.col[q] / width].row_ptr[r + 1];
  for (auto& b : out) {
    for (std::int64_t r = 0; r < a.rows; ++r) b.row_ptr[r + 1] += b.row_ptr[r];
    b.col.resize(static_cast<std::size_t>(b.row_ptr.back()));
    b.val.resize(b.col.size());
  }
  std::vector<std::int64_t> at(static_cast<std::size_t>(bands));
  for (std::int64_t r = 0; r < a.rows; ++r) {
    for (int k = 0; k < bands; ++k) at[k] = out[k].row_ptr[r];
    for (std::int64_t q = a.row_ptr[r]; q < a.row_ptr[r + 1]; ++q) {
      const auto k = static_cast<std::size_t>(a.col[q] / width);
      out[k].col[at[k]] = static_cast<local_index>(a.col[q] - begin[k]);
      out[k].val[at[k]++] = a.val[q];
    }
  }
  return out;
}

template <class T>
std::vector<BinnedBand<T>> make_binned_bands(const CsrBlock<T>& a, int lanes, int bands) {
  if (bands <= 0) bands = column_bands(a);
  std::vector<BinnedBand<T>> out(static_cast<std::size_t>(bands));
  if (bands == 1) {
    out[0].csr = a;
  } else {
    std::vector<std::int64_t> begin;
    std::vector<CsrBlock<T>> parts = split_column_bands(a, bands, begin);
    for (int k = 0; k < bands; ++k) {
      out[k].first_col = begin[k];
      out[k].csr = std::move(parts[k]);
    }
  }
  for (auto& b : out) b.layout = make_binned(row_lengths(b.csr), lanes);
  return out;
}

template <class T>
HybridFormat<T> make_hybrid(const CsrBlock<T>& a, std::int64_t width) {
  HybridFormat<T> h;
  h.rows = a.rows;
  h.width = width;
  const std::vector<std::int64_t> lengths = row_lengths(a);
  h.split = hybrid_split(lengths, width);
  h.ell_col.assign(static_cast<std::size_t>(width * a.rows), local_index{-1});
  h.ell_val.assign(h.ell_col.size(), T(0));
  h.coo_row.reserve(static_cast<std::size_t>(h.split.coo_entries));
  h.coo_col.reserve(h.coo_row.capacity());
  h.coo_val.reserve(h.coo_row.capacity());
  for (std::int64_t r = 0; r < a.rows; ++r) {
    std::int64_t k = 0;
    for (std::int64_t q = a.row_ptr[r]; q < a.row_ptr[r + 1]; ++q, ++k) {
      if (k < width) {
        h.ell_col[k * a.rows + r] = a.col[q];
        h.ell_val[k * a.rows + r] = a.val[q];
      } else {
        h.coo_row.push_back(static_cast<local_index>(r));
        h.coo_col.push_back(a.col[q]);
        h.coo_val.push_back(a.val[q]);
      }
    }
  }
  return h;
}

template <class T>
std::vector<local_index> coo_rows(const CsrBlock<T>& a) {
  std::vector<local_index> out(static_cast<std::size_t>(a.nnz()));
  for (std::int64_t r = 0; r < a.rows; ++r)
    for (std::int64_t q = a.row_ptr[r]; q < a.row_ptr[r + 1]; ++q) out[q] = static_cast<local_index>(r);
  return out;
}

#define TESSERA_SPMV_INSTANTIATE(T)                                             \
  template std::vector<std::int64_t> row_lengths<T>(const CsrBlock<T>&);        \
  template HybridFormat<T> make_hybrid<T>(const CsrBlock<T>&, std::int64_t);    \
  template std::vector<local_index> coo_rows<T>(const CsrBlock<T>&);                  \
  template int column_bands<T>(const CsrBlock<T>&);                                   \
  template std::vector<BinnedBand<T>> make_binned_bands<T>(const CsrBlock<T>&, int, int);                                   \
  template std::vector<CsrBlock<T>> split_column_bands<T>(const CsrBlock<T>&, int, std::vector<std::int64_t>&);
TESSERA_SPMV_INSTANTIATE(float)
TESSERA_SPMV_INSTANTIATE(double)
#undef TESSERA_SPMV_INSTANTIATE

}  // namespace tessera::spmv
