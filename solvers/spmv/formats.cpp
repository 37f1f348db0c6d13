#include "solvers/spmv/formats.hpp"

#include <algorithm>

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
  template std::vector<local_index> coo_rows<T>(const CsrBlock<T>&);
TESSERA_SPMV_INSTANTIATE(float)
TESSERA_SPMV_INSTANTIATE(double)
#undef TESSERA_SPMV_INSTANTIATE

}  // namespace tessera::spmv
