#pragma once
// What an spmv run writes into <output_dir>:
//   spmv.h5           multiply: /x and /y; cg: /x (the solution), /b (and /x_exact for a
//                     manufactured b); global 1-D datasets of the run's precision, with the
//                     matrix statistics, the run's settings and the resolved deck as attributes
//   spmv_history.h5   cg: the time series /cg (step, residual, relative_residual, alpha, beta),
//                     one row per iteration (io::SeriesLog)
//   matrix.h5         with spmv.write_matrix: the matrix as HDF5 CSR (/row_ptr, /col, /val,
//                     attribute shape), readable with spmv.matrix.source = "hdf5"
// Every dataset has its `units` ("1": the matrix and vectors are pure numbers), every
// file's root the provenance attributes (io/provenance.hpp). Each is published whole
// (io::OutputFile).
#include <filesystem>
#include <string>

#include "comm/context.hpp"
#include "io/h5_file.hpp"
#include "io/provenance.hpp"
#include "solvers/spmv/matrix.hpp"
#include "solvers/spmv/stats.hpp"

namespace tessera::spmv {

inline constexpr const char* kResultFile = "spmv.h5";
inline constexpr const char* kHistoryFile = "spmv_history.h5";
inline constexpr const char* kMatrixFile = "matrix.h5";

// Collective: the statistics as attributes of `g`.
void write_stats_attributes(const io::Object& g, const MatrixStats& s);

// Collective: <dir>/matrix.h5. Returns its path.
template <class T>
std::filesystem::path write_matrix_file(comm::Context& ctx, const std::filesystem::path& dir, const DistMatrix<T>& m,
                                        const MatrixStats& stats, const io::Provenance& provenance);

}  // namespace tessera::spmv
