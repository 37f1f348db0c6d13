#pragma once
// One rank's part of a distributed sparse matrix, and how it is built from entries.
//
// Layout (PETSc's and Ginkgo's): rows are split over the ranks in contiguous ranges balanced
// by nonzeros (a Partition); x is split the same way for a square matrix (uniformly by
// columns otherwise). Rank r holds its rows as two CSR blocks:
//   local: the entries in columns r owns (local column = column - first owned column);
//   ghost: the others, their columns compressed into the sorted list `ghost_cols` (ghost
//          column = position in that list).
// so y = local * x_owned + ghost * x_ghost, where x_ghost comes from the columns' owners as the
// GhostPlan says (what each rank sends whom, and where it lands).
//
// Building: entries (Triplets, any rank, any row, any order, repeats allowed) are moved to the
// owners of their rows and assembled (assemble_rows: sorted by column in each row, repeated
// entries summed in the order given, which is file order for a file whatever the rank count).
// The result is identical for any number of ranks.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "core/partition.hpp"
#include "solvers/spmv/types.hpp"

namespace tessera::spmv {

// Entries with global indices, in no particular order.
struct Triplets {
  std::vector<std::int64_t> row, col;
  std::vector<double> val;
  std::size_t size() const { return row.size(); }
  void push(std::int64_t i, std::int64_t j, double v) {
    row.push_back(i);
    col.push_back(j);
    val.push_back(v);
  }
};

// Contiguous rows [first_row, first_row + rows()) with global columns, sorted in each row, no
// column twice in a row.
template <class V>
struct RowBlock {
  std::int64_t first_row = 0;
  std::vector<std::int64_t> row_ptr{0};
  std::vector<std::int64_t> col;
  std::vector<V> val;
  std::int64_t rows() const { return static_cast<std::int64_t>(row_ptr.size()) - 1; }
  std::int64_t nnz() const { return row_ptr.back(); }
};

// Non-collective: the triplets' rows (every row index in [first_row, first_row + rows)) sorted
// by column, repeated entries summed in the order they come in `t`. std::logic_error for an
// entry outside the rows.
RowBlock<double> assemble_rows(std::int64_t first_row, std::int64_t rows, const Triplets& t);

// Contiguous ranges of [0, size()), one per rank: rank r owns [starts[r], starts[r + 1]).
struct Partition {
  std::vector<std::int64_t> starts{0};
  int parts() const { return static_cast<int>(starts.size()) - 1; }
  std::int64_t size() const { return starts.back(); }
  Range range(int r) const { return {starts[r], starts[r + 1] - starts[r]}; }
  int owner(std::int64_t i) const;  // the rank whose range holds i (0 <= i < size())
  bool operator==(const Partition&) const = default;
};

Partition uniform_partition(std::int64_t n, int parts);

// Collective: rows [0, n) split so that each rank's weight (its nonzeros plus its rows: an
// empty row still costs a y entry) is as even as contiguous ranges allow. `lengths` are the
// entry counts of this rank's rows under uniform_partition(n, P) (any other estimate works;
// the split is the same for any P given the same lengths).
Partition balanced_partition(comm::Context& ctx, std::int64_t n, std::span<const std::int64_t> lengths);

// Collective: moves every entry to the owner of its row under `part` and assembles the rows
// there. All row indices must lie in [0, part.size()).
RowBlock<double> distribute(comm::Context& ctx, const Triplets& t, const Partition& part);

// Collective: the same rows in another partition (entries move, nothing is summed).
RowBlock<double> redistribute(comm::Context& ctx, const RowBlock<double>& rows, const Partition& part);

// A CSR block with 64-bit row pointers and 32-bit (local) column indices.
template <class T>
struct CsrBlock {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> row_ptr{0};
  std::vector<local_index> col;
  std::vector<T> val;
  std::int64_t nnz() const { return row_ptr.back(); }
};

// Which x entries travel between ranks for y = A x. Counts are per rank (size P).
struct GhostPlan {
  std::vector<std::int64_t> recv_counts, recv_offsets;  // into x_ghost (ghost_cols order)
  std::vector<std::int64_t> send_counts, send_offsets;  // into send_index
  std::vector<local_index> send_index;                  // owned x entries to send, by rank
};

template <class T>
struct DistMatrix {
  std::int64_t rows = 0, cols = 0, nnz = 0;  // global
  Partition row_part, col_part;
  Range my_rows, my_cols;
  CsrBlock<T> local, ghost;
  std::vector<std::int64_t> ghost_cols;  // sorted global columns of the ghost block
  GhostPlan plan;
  std::string description;  // where the matrix came from, for logs and outputs
  bool square() const { return rows == cols; }
};

// The column partition that goes with a row partition: the same for a square matrix,
// uniform over the columns otherwise.
Partition column_partition(const Partition& rows, std::int64_t cols);

// Collective: this rank's blocks and the ghost plan from its rows (those of `row_part`).
// InputError (agreed) when a rank's rows, owned columns or ghosts pass the 32-bit local
// index range (more ranks are needed).
template <class T>
DistMatrix<T> make_distributed(comm::Context& ctx, const RowBlock<double>& rows, const Partition& row_part,
                               std::int64_t cols, std::string description);

// This rank's rows with global columns again (local and ghost entries merged, sorted).
template <class T>
RowBlock<T> global_rows(const DistMatrix<T>& m);

// The diagonal entries of this rank's rows (0 where a row has none). Square matrices only.
template <class T>
std::vector<T> diagonal(const DistMatrix<T>& m);

// Collective: a checksum of the whole matrix (sizes, structure and values in global order),
// the same for any rank count. For restarts: the matrix must be the one checkpointed.
template <class T>
std::uint64_t matrix_checksum(comm::Context& ctx, const DistMatrix<T>& m);

}  // namespace tessera::spmv
