#include "solvers/fdtd/material_grid.hpp"

#include <stdexcept>


namespace tessera::fdtd {

void material_values(const Model& m, const LocalDomain& dom, std::span<const MaterialIndex> index, int q,
                     const Box& cells, std::span<float> out, std::span<const NodeOverride> nodes) {
  if (out.size() != static_cast<std::size_t>(cells.cells()))
    throw std::invalid_argument("material_values: out does not hold one value per cell");
  // Per material first: a cell's value is its material's.
  std::vector<float> table;
  for (const MaterialSpec& spec : m.materials) {
    switch (q) {
      case kEpsX:
      case kEpsY:
      case kEpsZ: table.push_back(static_cast<float>(spec.eps_r)); break;
      case kSigma: table.push_back(static_cast<float>(spec.pec ? 0.0 : spec.sigma)); break;
      case kMaterialNumber: table.push_back(static_cast<float>(table.size())); break;
      default: throw std::invalid_argument("material_values: unknown quantity");
    }
  }
  const Layout layout = make_layout(dom.n);
  std::size_t at = 0;
  for (std::int64_t k = cells.lo[2]; k < cells.hi[2]; ++k)
    for (std::int64_t j = cells.lo[1]; j < cells.hi[1]; ++j)
      for (std::int64_t i = cells.lo[0]; i < cells.hi[0]; ++i)
        out[at++] = table[index[static_cast<std::size_t>(layout.at(i, j, k))]];
  // Nodes with their own permittivity (the stepper's list, in the same Layout).
  if (q == kEpsX || q == kEpsY || q == kEpsZ)
    for (const NodeOverride& o : nodes) {
      if (o.component != q - kEpsX) continue;
      const Index3 c = layout.cell_of(o.index);
      bool inside = true;
      for (int a = 0; a < 3; ++a) inside = inside && c[a] >= cells.lo[a] && c[a] < cells.hi[a];
      if (inside)
        out[static_cast<std::size_t>((c[0] - cells.lo[0]) +
                                     cells.extent(0) * ((c[1] - cells.lo[1]) + cells.extent(1) * (c[2] - cells.lo[2])))] =
            static_cast<float>(o.eps_r);
    }
}

}  // namespace tessera::fdtd
