#pragma once
// shape = "mesh": a closed triangle surface from an STL file, voxelised on the ranks that own
// the cells. A run reads the file on rank 0 only (mesh_broadcast.hpp).
#include <vector>

#include "solvers/fdtd/geometry/loaded_shape.hpp"
#include "solvers/fdtd/geometry/stl_reader.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// Reads `file` (STL, binary or ASCII), checks that it is a closed surface and places it (scale,
// rotate, translate): the triangles in metres, global coordinates. Throws InputError naming the
// file (and the triangle) when it is not a readable, closed, finite surface.
std::vector<Triangle> read_placed_mesh(const ShapeFile& file);

// This rank's part of the placed mesh `tris`: the whole mesh's bounds, and inside/outside
// queries for the global cells of `region` (only the triangles that can touch them are kept).
LoadedShape mesh_shape_from(const std::vector<Triangle>& tris, const Shape& s, const Model& m, const Box& region);

}  // namespace tessera::fdtd
