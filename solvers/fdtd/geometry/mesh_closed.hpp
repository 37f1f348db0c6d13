#pragma once
// Is a triangle soup a closed surface? The test shape = "mesh" needs before ray parity can
// tell inside from outside.
#include <vector>

#include "solvers/fdtd/geometry/stl_reader.hpp"

namespace tessera::fdtd {

// Drops the triangles with two equal corners (no area, no inside), then welds the vertices
// by exact coordinates and requires every edge to be used by exactly two triangles. Throws
// InputError (stl_context(file)) with the number of open edges (used once) and of edges used
// by more than two triangles, and one example edge with its coordinates and triangle.
void require_closed(std::vector<Triangle>& tris, const ShapeFile& file);

}  // namespace tessera::fdtd
