#pragma once
// Matrices from decks and files, and matrices into files.
//
// load_matrix builds this rank's rows of the matrix a MatrixSpec describes, already balanced
// over the ranks by nonzeros:
//   generated       each rank generates its rows (generate.hpp);
//   matrix_market   read in parallel (io/matrix_market.hpp); a symmetric file's off-diagonal
//                   entries are mirrored (negated for skew-symmetric); repeats are summed in
//                   file order;
//   hdf5            CSR datasets row_ptr (rows + 1), col and val (nonzeros) in one group,
//                   read collectively (each rank a block of rows), checked (row_ptr from 0,
//                   non-decreasing, ending at the nonzero count; columns in range; finite
//                   values); unsorted and repeated entries in a row are sorted and summed.
//                   The group's attribute `shape` = [rows, columns] gives the columns (absent:
//                   square). Integer datasets may be int32 or int64, values float32 or float64.
// write_csr writes a distributed matrix in that HDF5 CSR form (global datasets, any rank
// count reads it back), sorted rows, no repeats.
//
// Every mistake in a file is an InputError on every rank that names the file and the line
// (Matrix Market) or the dataset (HDF5).
#include <cstdint>
#include <functional>
#include <string>

#include "comm/context.hpp"
#include "io/h5_file.hpp"
#include "solvers/spmv/generate.hpp"
#include "solvers/spmv/matrix.hpp"

namespace tessera::spmv {

struct LoadedMatrix {
  RowBlock<double> rows;  // this rank's rows of `part`
  Partition part;
  std::int64_t cols = 0;
  std::string description;
};

// Collective, called with the matrix's size before its entries are read or generated (and
// before they are summed: nnz counts a file's entries, mirrored ones included); throws to
// refuse (require_memory).
using SizeCheck = std::function<void(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::string& where)>;

// Collective.
LoadedMatrix load_matrix(comm::Context& ctx, const MatrixSpec& spec, const SizeCheck& check = {});

// Collective: /row_ptr (int64), /col (int64), /val (T) and attribute shape under `g`.
template <class T>
void write_csr(comm::Context& ctx, const io::Group& g, const DistMatrix<T>& m);

}  // namespace tessera::spmv
