#include "solvers/fdtd/geometry/mesh_shape.hpp"

#include <algorithm>
#include <limits>
#include <memory>

#include "core/profile.hpp"

#include "solvers/fdtd/geometry/mesh_closed.hpp"
#include "solvers/fdtd/geometry/mesh_transform.hpp"
#include "solvers/fdtd/geometry/mesh_voxeliser.hpp"
#include "solvers/fdtd/geometry/stl_reader.hpp"

namespace tessera::fdtd {

// Every rank reads and checks the whole file (so all refuse a bad one together and agree on
// its bounds), then keeps only the triangles that can touch its cells.
LoadedShape load_mesh_shape(const Shape& s, const Model& m, const Box& region) {
  std::vector<Triangle> tris;
  {
    TESSERA_PROFILE("fdtd.mesh_read");  // read, closed-surface check, transform
    tris = read_stl(s.file);
    require_closed(tris, s.file);
    transform_mesh(tris, s.file.scale, s.file.rotate, s.file.translate);
  }
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
