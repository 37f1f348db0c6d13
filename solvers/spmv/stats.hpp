#pragma once
// Statistics of a distributed matrix for logs and output attributes: sizes, row lengths, the
// hybrid split the seed's rule (or the 80th-percentile rule) gives for the whole matrix, and
// how the partition and the ghost exchange fall on the ranks.
#include <cstdint>
#include <string>

#include "comm/context.hpp"
#include "solvers/spmv/formats.hpp"
#include "solvers/spmv/matrix.hpp"

namespace tessera::spmv {

struct MatrixStats {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t row_min = 0, row_max = 0, empty_rows = 0;
  double row_mean = 0;
  HybridRule rule = HybridRule::third;
  HybridSplit hybrid;  // of the whole matrix's rows (what one GPU holding it all would use)
  std::int64_t local_width_min = 0, local_width_max = 0;  // the rule on each rank's local block
  std::int64_t rank_nnz_min = 0, rank_nnz_max = 0;        // nonzeros per rank
  std::int64_t ghosts = 0, ghosts_max = 0;                // ghost columns: all ranks, most on one
  std::string describe() const;  // one paragraph for the log
};

// What `auto` runs on a matrix with these statistics. On the cpu engine csr-scalar (the others
// reproduce GPU algorithms there). On the cuda engine the hybrid where it is nearly all ELL (a
// tail of at most 10% of the nonzeros and padding of at most half of them): it ran at 95-97% of
// its byte model on the stencil and banded matrices of `tessera bench spmv`. Elsewhere, where
// row lengths vary, csr-binned (1.02x cuSPARSE on the power-law matrix, where the hybrid ran
// at 0.73x). Measured on an H100, docs/performance.md. A variant the deck names is kept.
Variant choose_variant(Variant requested, Backend backend, const MatrixStats& stats);

// Collective: the width `rule` gives for the rows of all ranks (this rank's row lengths).
std::int64_t global_hybrid_width(comm::Context& ctx, std::span<const std::int64_t> lengths, HybridRule rule);

// Collective.
template <class T>
MatrixStats matrix_stats(comm::Context& ctx, const DistMatrix<T>& m, HybridRule rule);

}  // namespace tessera::spmv
