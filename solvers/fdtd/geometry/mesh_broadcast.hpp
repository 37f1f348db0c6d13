#pragma once
// shape = "mesh" on many ranks: rank 0 reads and checks the STL file once and every rank gets
// the placed triangles by broadcast, instead of every rank reading the whole file itself.
#include <vector>

#include "comm/context.hpp"
#include "solvers/fdtd/geometry/stl_reader.hpp"

namespace tessera::fdtd {

// Collective. Rank 0 reads `file` (read_placed_mesh); the ranks agree on the outcome before any
// triangle moves, so a refusal on rank 0 throws the same comm::AgreedInputError (rank 0's
// message, naming the file and the triangle) on every rank and no rank waits in a broadcast.
// Then every rank receives rank 0's triangles bitwise.
std::vector<Triangle> read_mesh_on_root(comm::Context& ctx, const ShapeFile& file);

// Collective: rank 0's `tris` to every rank (resized there), in broadcasts of at most
// `chunk_bytes` each (whole triangles, at least one): an MPI count is an int, so 1 GiB chunks
// keep well below 2 GiB. Tests pass a small chunk to cross chunk boundaries.
inline constexpr std::size_t kTriangleChunkBytes = std::size_t{1} << 30;
void broadcast_triangles(comm::Context& ctx, std::vector<Triangle>& tris,
                         std::size_t chunk_bytes = kTriangleChunkBytes);

}  // namespace tessera::fdtd
