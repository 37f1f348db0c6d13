#pragma once
// The layouts the variants multiply, built on the host from a CSR block (so a cuda engine
// uploads the same arrays), and the pieces of arithmetic every engine shares.
//
//   csr-scalar, csr-vector   the CSR block itself
//   coo-segmented            plus a row index per nonzero (COO)
//   hybrid                   an ELL part (the first `width` entries of every row, column-major,
//                            padded with column -1) and a COO tail (the rest, by row)
//   merge-path               the CSR block; work split by merge_path_search
#include <cstdint>
#include <span>
#include <vector>

#include "core/hd.hpp"
#include "solvers/spmv/matrix.hpp"
#include "solvers/spmv/types.hpp"

namespace tessera::spmv {

// The hybrid format's cut of a block (or of the whole matrix: stats.hpp).
struct HybridSplit {
  std::int64_t width = 0;        // ELL width
  std::int64_t ell_entries = 0;  // nonzeros in the ELL part
  std::int64_t ell_slots = 0;    // width x rows (with the padding)
  std::int64_t coo_entries = 0;  // nonzeros in the COO tail
  std::int64_t coo_rows = 0;     // rows with a tail (longer than width)
};

// The ELL width `rule` gives for rows of these lengths (0 for no rows). See HybridRule.
std::int64_t hybrid_width(std::span<const std::int64_t> lengths, HybridRule rule);
// The split at `width` of rows of these lengths.
HybridSplit hybrid_split(std::span<const std::int64_t> lengths, std::int64_t width);
// Row lengths of a CSR block.
template <class T>
std::vector<std::int64_t> row_lengths(const CsrBlock<T>& a);

template <class T>
struct HybridFormat {
  std::int64_t rows = 0, width = 0;
  std::vector<local_index> ell_col;  // width * rows; slot k of row i at k * rows + i; -1 = padding
  std::vector<T> ell_val;
  std::vector<local_index> coo_row, coo_col;  // the tail, ordered by row (then as in the row)
  std::vector<T> coo_val;
  HybridSplit split;
};

template <class T>
HybridFormat<T> make_hybrid(const CsrBlock<T>& a, std::int64_t width);

// Row index of every nonzero of a CSR block.
template <class T>
std::vector<local_index> coo_rows(const CsrBlock<T>& a);

// Merge-path (Merrill and Garland 2016): the work of y = A x is the merge of the row ends
// (row_end[i] = row_ptr[i + 1]) with the nonzero indices 0..nnz-1; rows + nnz items in all.
// Diagonal d of that merge is crossed at (row, nonzero) = the coordinate returned, so equal
// shares of items go to threads (or GPU blocks) however the nonzeros fall into rows.
struct MergeCoordinate {
  std::int64_t row = 0, nz = 0;
};
TESSERA_HD MergeCoordinate merge_path_search(std::int64_t diagonal, const std::int64_t* row_end, std::int64_t rows,
                                             std::int64_t nnz) {
  std::int64_t lo = diagonal > nnz ? diagonal - nnz : 0;
  std::int64_t hi = diagonal < rows ? diagonal : rows;
  while (lo < hi) {
    const std::int64_t pivot = lo + (hi - lo) / 2;
    if (row_end[pivot] <= diagonal - pivot - 1)
      lo = pivot + 1;
    else
      hi = pivot;
  }
  return {lo, diagonal - lo};
}

// The fused CG vector updates, element by element (both engines evaluate these).
// x += alpha p; r -= alpha q; returns the new r.
template <class T>
TESSERA_HD T cg_update_xr(T alpha, T p, T q, T& x, T& r) {
  x = x + alpha * p;
  r = r - alpha * q;
  return r;
}
// p = z + beta p, z = d r (Jacobi) or r.
template <class T>
TESSERA_HD T cg_update_p(T beta, T z, T p) {
  return z + beta * p;
}

}  // namespace tessera::spmv
