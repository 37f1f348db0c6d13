#pragma once
// Graph files, read in parallel (each rank parses the lines that start in its byte range of
// the file, io/text_slice.hpp) into its share of the input edges:
//  - Matrix Market (io/matrix_market.hpp, the reader spmv uses too): `%%MatrixMarket matrix
//    coordinate pattern|integer|real general|symmetric|skew-symmetric`, 1-based (row,
//    column[, value]) entries; a square matrix; values are checked and ignored. Every entry is one input edge (the graph is
//    undirected, so a symmetric file's lower triangle already means both directions).
//  - Edge lists (SNAP style): one `u v` pair per line, further columns ignored, `#` and `%`
//    comment lines, blank lines; ids 0-based unless index_base says otherwise.
// Vertex ids and counts are 64-bit. Mistakes raise InputError on every rank naming the file
// and the line: a malformed header or size line, a malformed entry, an index out of range,
// more or fewer entries than the size line announces.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "solvers/bfs/edge.hpp"

namespace tessera::bfs {

struct FileGraph {
  std::int64_t vertices = 0;
  std::vector<Edge> edges;  // this rank's share, 0-based
  std::string description;  // for logs and output attributes
};

// Collective.
FileGraph read_matrix_market(comm::Context& ctx, const std::filesystem::path& path);
// Collective. vertices = 0: the largest id (after index_base) plus one.
FileGraph read_edge_list(comm::Context& ctx, const std::filesystem::path& path, int index_base = 0,
                         std::int64_t vertices = 0);

}  // namespace tessera::bfs
