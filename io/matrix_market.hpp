#pragma once
// Matrix Market coordinate files, read in parallel: rank 0 parses the banner, comments and
// size line; then every rank parses the entry lines that start in its byte range of the file
// (io/text_slice.hpp) and keeps them in file order.
//
//   %%MatrixMarket matrix coordinate real|integer|pattern general|symmetric|skew-symmetric
//   % comments
//   rows columns entries
//   i j [value]          (1-based; `entries` lines; blank and % lines may appear anywhere)
//
// Counts and indices are 64-bit. A symmetric (skew-symmetric) file lists the lower triangle
// (row >= column; skew-symmetric: row > column, or a zero on the diagonal): the caller mirrors
// each off-diagonal entry (negated for skew-symmetric); this reader returns the entries as the
// file has them and refuses one above the diagonal, which the mirroring would double. Repeated entries are returned as they are (Matrix Market
// means their sum). Values: `real` and `integer` fields as doubles (finite), `pattern` as 1.
//
// Mistakes raise InputError on every rank naming the file and the line: a missing or
// malformed banner, an unsupported format/field/symmetry, a malformed size line, a malformed
// entry or value, an index out of range, an entry above the diagonal of a symmetric matrix,
// more or fewer entries than the size line announces.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/context.hpp"

namespace tessera::io {

enum class MatrixField { pattern, integer, real };
enum class MatrixSymmetry { general, symmetric, skew_symmetric };
std::string_view to_string(MatrixField f);
std::string_view to_string(MatrixSymmetry s);

struct MatrixMarketHeader {
  std::int64_t rows = 0, columns = 0, entries = 0;
  MatrixField field = MatrixField::real;
  MatrixSymmetry symmetry = MatrixSymmetry::general;
  std::int64_t data_begin = 0;  // byte offset of the line after the size line
  std::int64_t size_line = 0;   // line number of the size line
};

struct MatrixMarketOptions {
  std::string what = "the matrix file";  // names the file in messages ("the graph file")
  // Refuse a non-square matrix at its size line, with `square_reason` ("a graph needs a
  // square matrix").
  bool require_square = false;
  std::string square_reason = "a square matrix is needed";
  // Called on every rank with the header before any entry is parsed (a memory check, say);
  // an exception it throws on any rank ends the read on every rank.
  std::function<void(const MatrixMarketHeader&)> on_header;
};

struct MatrixMarketEntries {
  MatrixMarketHeader header;
  // This rank's entries in file order, 0-based; value 1 for pattern files.
  std::vector<std::int64_t> row, col;
  std::vector<double> value;
  std::int64_t first_entry = 0;  // the global index (in file order) of this rank's first entry
  std::string description;       // "Matrix Market F (real, symmetric): 5 x 5, 12 entries"
};

// Collective.
MatrixMarketEntries read_matrix_market(comm::Context& ctx, const std::filesystem::path& path,
                                       const MatrixMarketOptions& options = {});

}  // namespace tessera::io
