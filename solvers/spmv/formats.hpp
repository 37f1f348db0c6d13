#pragma once
// The layouts the variants multiply, built on the host from a CSR block (so a cuda engine
// uploads the same arrays), and the pieces of arithmetic every engine shares.
//
//   csr-scalar, csr-vector   the CSR block itself
//   coo-segmented            plus a row index per nonzero (COO)
//   hybrid                   an ELL part (the first `width` entries of every row, column-major,
//                            padded with column -1) and a COO tail (the rest, by row)
//   merge-path               the CSR block; work split by merge_path_search
//   csr-binned               the CSR block, plus the list of its long rows cut into chunks
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

// csr-binned: rows of up to `long_row` nonzeros are each summed by a sub-warp of `lanes` lanes
// (lane l takes the row's entries l, l + lanes, ...; the lanes meet in a tree); longer rows
// are cut into chunks of kBinnedChunk nonzeros, a warp each (32 lanes, then a tree), and a
// long row's chunk sums are added in chunk order. No row waits on another row's length.
inline constexpr std::int64_t kBinnedChunk = 256;
inline constexpr int kBinnedRounds = 8;  // rows longer than kBinnedRounds * lanes are long
struct BinnedFormat {
  int lanes = 0;
  std::int64_t long_row = 0;             // rows with more nonzeros are split into chunks
  std::vector<local_index> long_rows;    // the long rows, increasing
  std::vector<std::int64_t> chunk_ptr;   // long row k's chunks: [chunk_ptr[k], chunk_ptr[k + 1])
  std::vector<local_index> chunk_owner;  // chunk c belongs to long row chunk_owner[c]
  std::int64_t chunks() const { return chunk_ptr.empty() ? 0 : chunk_ptr.back(); }
};
// The sub-warp width for rows of these lengths: the smallest power of two from 2 to 32 at or
// above a fifth of their mean length. Fitted to `tessera bench spmv` on an H100
// (docs/performance.md): the fastest widths were 2 lanes at mean lengths 7 and 10 (a power-law
// band), 4 at 15, 8 at 27; wider sub-warps idle lanes, narrower ones loop longer.
int binned_lanes(std::span<const std::int64_t> lengths);
// The binned layout of rows with these lengths (`lanes` 0: binned_lanes).
BinnedFormat make_binned(std::span<const std::int64_t> lengths, int lanes);

// csr-binned's column bands. When rows reach across all of x (random columns), every part of
// x is gathered at once, and once x outgrows what L2 keeps of it, most gathers miss: on an
// H100 (50 MB of L2 in two halves) a 32 MB x missed about 60% of the time, so x cost more DRAM
// traffic than the matrix. Cutting the columns into bands of kBandBytes of x and multiplying
// band after band (y = A_0 x_0, y += A_1 x_1, ...) keeps each band's x in L2, for one more pass
// over y and the row pointers per band. Stencil and banded matrices gather from a narrow
// window of x already and stay in one band.
inline constexpr std::int64_t kBandBytes = std::int64_t{16} << 20;
// Bands for a block with these values: 1 unless x is larger than a band and at least half the
// nonzeros lie in rows whose columns span more than a band.
template <class T>
int column_bands(const CsrBlock<T>& a);
// The block's columns cut into `bands` equal bands: band k holds columns [begin[k],
// begin[k + 1]) renumbered from 0, every row in every band (empty where it has no entry there).
template <class T>
std::vector<CsrBlock<T>> split_column_bands(const CsrBlock<T>& a, int bands, std::vector<std::int64_t>& begin);

// csr-binned's whole layout: a band's first column (x offset), its rows, their binned layout.
template <class T>
struct BinnedBand {
  std::int64_t first_col = 0;
  CsrBlock<T> csr;
  BinnedFormat layout;
};
// `bands` 0: column_bands' rule; `lanes` 0: binned_lanes' rule on each band's row lengths.
template <class T>
std::vector<BinnedBand<T>> make_binned_bands(const CsrBlock<T>& a, int lanes, int bands);

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
