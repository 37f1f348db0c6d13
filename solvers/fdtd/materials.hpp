#pragma once
// Materials: the small coefficient table (one entry per material) and the per-cell uint8
// index painted from the geometry. Coefficients are never stored per cell.
#include <cstdint>
#include <span>
#include <vector>

#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/params.hpp"
#include "solvers/fdtd/yee.hpp"

namespace tessera::fdtd {

struct MaterialTable {
  std::vector<Material> coeffs;  // per material, for the E update
  std::vector<float> eps_r;      // per material, for the energy
  std::vector<double> cb;        // per material: dt / eps / (1 + s), for soft sources
};

MaterialTable material_table(const Model& m);

// Fills the interior cells of `index` (a Layout-shaped array whose base is `index` itself)
// with the material of each cell: the background, then every shape in deck order; a cell
// belongs to a shape when its centre does. Ghost cells are set to the background too.
void paint_materials(const Model& m, const LocalDomain& dom, const Layout& layout, std::span<MaterialIndex> index);

// The H-update coefficients dt / (mu0 d).
HCoeffs h_coefficients(const Model& m);

}  // namespace tessera::fdtd
