#include "solvers/fdtd/geometry/mesh_shape.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tessera::fdtd {

// Being written (issue 34): refused with a clear message until then.
LoadedShape load_mesh_shape(const Shape& s, const Model&, const Box&) {
  throw InputError(fmt::format("{}: {}: shape = \"mesh\" is not available in this build yet", s.file.where, s.file.name));
}

}  // namespace tessera::fdtd
