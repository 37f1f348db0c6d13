#pragma once
// Placing an STL surface in the grid: scale, rotation, translation (shape = "mesh").
#include <array>
#include <vector>

#include "solvers/fdtd/geometry/stl_reader.hpp"

namespace tessera::fdtd {

// v -> R (scale v) + translate with R = Rz Ry Rx, the angles of `rotate_degrees` (x first),
// in double precision. Equal corners stay equal, so a closed surface stays closed.
void transform_mesh(std::vector<Triangle>& tris, double scale, const std::array<double, 3>& rotate_degrees,
                    const std::array<double, 3>& translate);

}  // namespace tessera::fdtd
