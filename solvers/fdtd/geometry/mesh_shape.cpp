#include "solvers/fdtd/geometry/mesh_shape.hpp"

#include <algorithm>
#include <limits>
#include <memory>

#include "core/profile.hpp"

#include "solvers/fdtd/geometry/mesh_closed.hpp"
#include "solvers/fdtd/geometry/mesh_transform.hpp"
#include "solvers/fdtd/geometry/mesh_voxeliser.hpp"

namespace tessera::fdtd {

std::vector<Triangle> read_placed_mesh(const ShapeFile& file) {
  std::vector<Triangle> tris = read_stl(file);
  require_closed(tris, file);
  transform_mesh(tris, file.scale, file.rotate, file.translate);
  return tris;
}

LoadedShape mesh_shape_from(const std::vector<Triangle>& tris, const Shape& s, const Model& m, const Box& region) {
  TESSERA_PROFILE("fdtd.mesh_bin");  // this rank's triangles, binned
  LoadedShape loaded;
  loaded.lower.fill(std::numeric_limits<double>::infinity());
  loaded.upper.fill(-std::numeric_limits<double>::infinity());
  for (const Triangle& t : tris)
    for (const Vertex& v : t)
      for (int a = 0; a < 3; ++a) {
        loaded.lower[a] = std::min(loaded.lower[a], v[a]);
        loaded.upper[a] = std::max(loaded.upper[a], v[a]);
      }
  loaded.data = std::make_shared<MeshVoxeliser>(tris, s.material, region, m.cell_size);
  return loaded;
}

}  // namespace tessera::fdtd
