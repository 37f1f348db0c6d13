#pragma once
// shape = "mesh": a closed triangle surface from an STL file, voxelised on the ranks that own
// the cells.
#include "solvers/fdtd/geometry/loaded_shape.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// Reads s.file (STL, binary or ASCII), transforms it and prepares inside/outside queries for the
// global cells of `region`. Throws InputError naming the file (and the triangle) when it is not
// a readable, closed, finite surface.
LoadedShape load_mesh_shape(const Shape& s, const Model& m, const Box& region);

}  // namespace tessera::fdtd
