#pragma once
// File-backed shapes (shape = "mesh" from STL, shape = "voxels" from HDF5): what one rank loaded
// from the file for the cells it paints and samples, answering "what is at this point". The
// analytic shapes (box, sphere, cylinder) answer from their deck parameters instead
// (Shape::material_at in params.cpp).
#include <array>
#include <cstdint>
#include <limits>
#include <span>

#include "solvers/fdtd/grid.hpp"

namespace tessera::fdtd {

using Point = std::array<double, 3>;  // metres, global coordinates

class ShapeData {
 public:
  virtual ~ShapeData() = default;
  // The material (an index into Model::materials) at p, or -1 where p is outside the shape.
  virtual int material_at(const Point& p) const = 0;
  // The relative permittivity the shape sets at p on top of its material (a real-valued voxel
  // map); NaN where it sets none.
  virtual double eps_r_at(const Point&) const { return std::numeric_limits<double>::quiet_NaN(); }
  // material_at() at the centre (i + 1/2) d of every cell of `cells` (global indices), x fastest:
  // out.size() == cells.cells(). Shapes with a faster way than point queries (a mesh's row
  // voxeliser) override it; the result must equal the point queries'.
  virtual void material_at_centres(const Box& cells, const std::array<double, 3>& cell_size,
                                   std::span<int> out) const;
};

}  // namespace tessera::fdtd
