#pragma once
// The matrices a deck can ask for, and the generated ones. Every generated row is a pure
// function of its index (and the seed), so each rank generates its own rows, identically for
// any number of ranks.
//   poisson7   3D Poisson on an n^3 grid, 7-point stencil, Dirichlet boundary: 6 on the
//              diagonal, -1 per neighbour inside the grid (SPD); n^3 rows
//   poisson27  the 27-point stencil: 26 on the diagonal, -1 per neighbour (SPD)
//   banded     n rows, the columns within `half_bandwidth` of the diagonal: 2 b + 1 on the
//              diagonal, -1 elsewhere (strictly diagonally dominant, so SPD)
//   powerlaw   n x n, row lengths from a Pareto law (min_row_length * u^(-1/(exponent-1)),
//              at most max_row_length): most rows short, a few very long; random columns
//              (repeats summed) and small integer values in [-4, 4] without 0; not symmetric
#include <cstdint>
#include <string>

#include "core/partition.hpp"
#include "solvers/spmv/matrix.hpp"

namespace tessera::spmv {

enum class MatrixSource { poisson7, poisson27, banded, powerlaw, matrix_market, hdf5 };
std::string_view to_string(MatrixSource s);
MatrixSource parse_matrix_source(std::string_view text);

struct MatrixSpec {
  MatrixSource source = MatrixSource::poisson7;
  std::int64_t n = 0;               // poisson: grid points per axis; banded, powerlaw: rows
  std::int64_t half_bandwidth = 1;  // banded
  std::uint64_t seed = 1;           // powerlaw
  std::int64_t min_row_length = 1, max_row_length = 0;  // powerlaw (0: the column count)
  double exponent = 2.0;                                // powerlaw (> 1)
  std::string file, group = "/";    // matrix_market, hdf5
  std::string where_file;           // the deck location of the file, for messages

  bool generated() const { return source != MatrixSource::matrix_market && source != MatrixSource::hdf5; }
  std::string describe() const;
};

// Generated matrices only: rows (= columns).
std::int64_t generated_rows(const MatrixSpec& s);
// The entries row `row` is generated with (before repeats are summed: an upper bound).
std::int64_t generated_row_length(const MatrixSpec& s, std::int64_t row);
// Non-collective: rows [r.begin, r.end()) of the generated matrix, assembled.
RowBlock<double> generate_rows(const MatrixSpec& s, Range r);

}  // namespace tessera::spmv
