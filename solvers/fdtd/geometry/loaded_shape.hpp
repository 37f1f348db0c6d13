#pragma once
// What loading one file-backed shape gives: its data for this rank and its bounds. Each kind's
// loader (mesh_shape.hpp, voxel_shape.hpp) returns one.
#include <memory>

#include "solvers/fdtd/geometry/shape_data.hpp"

namespace tessera::fdtd {

struct LoadedShape {
  std::shared_ptr<const ShapeData> data;
  Point lower{}, upper{};  // the whole shape's axis-aligned bounds (not only this rank's part)
};

}  // namespace tessera::fdtd
