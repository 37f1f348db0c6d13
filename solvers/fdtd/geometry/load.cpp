#include "solvers/fdtd/geometry/load.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/agree.hpp"
#include "solvers/fdtd/geometry/mesh_broadcast.hpp"
#include "solvers/fdtd/geometry/mesh_shape.hpp"
#include "solvers/fdtd/geometry/voxel_shape.hpp"

namespace tessera::fdtd {

Box geometry_region(const LocalDomain& dom) {
  Box r = dom.global_box();
  for (int a = 0; a < 3; ++a) {
    r.lo[a] = std::max<std::int64_t>(0, r.lo[a] - kGeometryMargin);
    r.hi[a] = std::min<std::int64_t>(dom.global[a], r.hi[a] + kGeometryMargin);
  }
  return r;
}

void load_geometry(comm::Context& ctx, Model& m, const LocalDomain& dom) {
  const Box region = geometry_region(dom);
  for (Shape& s : m.shapes) {
    if (s.kind != ShapeKind::mesh && s.kind != ShapeKind::voxels) continue;
    // Collective and agreed inside: returns on every rank or throws on every rank.
    std::vector<Triangle> tris;
    if (s.kind == ShapeKind::mesh) tris = read_mesh_on_root(ctx, s.file);
    // What follows may fail on one rank alone (its part of a voxel map, memory): agreed here,
    // before the next shape's broadcast.
    io::agree_input(ctx, [&] {
      LoadedShape loaded = s.kind == ShapeKind::mesh ? mesh_shape_from(tris, s, m, region)
                                                     : load_voxel_shape(s, m, region);
      std::vector<Triangle>().swap(tris);  // this rank's triangles live on in the voxeliser
      // The same test as the analytic shapes' (params.cpp): inside the domain, touching its
      // faces allowed. Every rank computes it from the whole shape's bounds, so all refuse together.
      for (int a = 0; a < 3; ++a) {
        const double extent = m.cells[a] * m.cell_size[a], tol = 1e-9 * extent;
        if (loaded.lower[a] < -tol || loaded.upper[a] > extent + tol)
          throw InputError(fmt::format("{}: {} ('{}') lies outside the domain: it spans {:g} .. {:g} m along {}, "
                                       "the domain 0 .. {:g} m",
                                       s.file.where, s.file.name, s.file.path, loaded.lower[a], loaded.upper[a],
                                       char('x' + a), extent));
      }
      s.data = std::move(loaded.data);
      s.min = loaded.lower;
      s.max = loaded.upper;
    });
  }
}

}  // namespace tessera::fdtd
