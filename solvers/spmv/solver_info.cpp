#include "solvers/spmv/solver_info.hpp"

#include <algorithm>

#include "solvers/spmv/bench.hpp"
#include "solvers/spmv/schema.hpp"
#include "solvers/spmv/spmv_solver.hpp"

namespace tessera::spmv {
namespace {

// A generated matrix's size is known from the deck: rows and (a lower bound of) nonzeros.
// A file's is checked when its header is read (solvers/spmv/spmv_solver.cpp).
std::optional<MemoryEstimate> memory(const deck::Deck& d, Backend) {
  const std::string& source = d.get_string("spmv.matrix.source");
  if (!d.has("spmv.matrix.n") || source == "matrix_market" || source == "hdf5") return std::nullopt;
  const double n = static_cast<double>(d.get_int("spmv.matrix.n"));
  double rows = n, nnz = 0;
  if (source == "poisson7") {
    rows = n * n * n;
    nnz = 7 * rows - 6 * n * n;  // every axis loses 2 n^2 neighbours at the faces
  } else if (source == "poisson27") {
    rows = n * n * n;
    nnz = (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
  } else if (source == "banded") {
    const double b = std::min(static_cast<double>(d.get_int("spmv.matrix.half_bandwidth")), n - 1);
    nnz = n * (2 * b + 1) - b * (b + 1);
  } else {  // powerlaw: every row at least min_row_length (before repeats are summed)
    nnz = n * std::min(static_cast<double>(d.get_int("spmv.matrix.min_row_length")), n) / 2;
  }
  const double value_bytes = d.get_string("spmv.precision") == "float32" ? 4 : 8;
  return MemoryEstimate{"spmv.matrix.n",
                        [=](double ranks) { return matrix_memory(rows, nnz, value_bytes, ranks); }};
}

}  // namespace

SolverInfo solver_info() {
  SolverInfo info;
  info.name = "spmv";
  info.description = "sparse matrix-vector products (the seed's per-row, per-element and hybrid kernels, merge-path) "
                     "over many ranks, and conjugate gradients";
  info.format_version = 1;
  info.schema = spmv_schema;
  info.create = [](RunContext& run) { return make_spmv_solver(run); };
  info.bench = bench_spmv;
  // How the product is computed and what is written besides: not what is computed.
  info.restart_may_change = {"spmv.variant", "spmv.hybrid_rule", "spmv.verify", "spmv.write_matrix"};
  info.memory = memory;
  return info;
}

}  // namespace tessera::spmv
