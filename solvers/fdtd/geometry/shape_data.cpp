#include "solvers/fdtd/geometry/shape_data.hpp"

namespace tessera::fdtd {

void ShapeData::material_at_centres(const Box& cells, const std::array<double, 3>& cell_size,
                                    std::span<int> out) const {
  std::size_t n = 0;
  for (std::int64_t k = cells.lo[2]; k < cells.hi[2]; ++k)
    for (std::int64_t j = cells.lo[1]; j < cells.hi[1]; ++j)
      for (std::int64_t i = cells.lo[0]; i < cells.hi[0]; ++i)
        out[n++] = material_at({(i + 0.5) * cell_size[0], (j + 0.5) * cell_size[1], (k + 0.5) * cell_size[2]});
}

}  // namespace tessera::fdtd
