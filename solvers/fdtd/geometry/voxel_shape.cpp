#include "solvers/fdtd/geometry/voxel_shape.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tessera::fdtd {

// Being written (issue 34): refused with a clear message until then.
LoadedShape load_voxel_shape(const Shape& s, const Model&, const Box&) {
  throw InputError(fmt::format("{}: {}: shape = \"voxels\" is not available in this build yet", s.file.where, s.file.name));
}

}  // namespace tessera::fdtd
