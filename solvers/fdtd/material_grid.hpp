#pragma once
// The material grid as the E update sees it, cell by cell: what the material output writes
// (material_output.hpp) and the one place that says which permittivity a node gets.
#include <span>
#include <vector>

#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/material_quantity.hpp"
#include "solvers/fdtd/params.hpp"
#include "solvers/fdtd/smoothing.hpp"

namespace tessera::fdtd {

// Quantity q (material_quantity.hpp) of every cell of `cells` (local cell indices, inside
// [0, dom.n)), x fastest, into out (out.size() == cells.cells()), from `index`
// (this rank's paint_materials array, Layout-shaped over dom.n: Stepper::release_material_index):
//   eps_x, eps_y, eps_z: the relative permittivity of the cell's Ex, Ey, Ez node: its
//     material's eps_r (eps_inf for a dispersive one; 1 for pec, whose E is held at 0), or
//     the node's own where `nodes` lists it (smoothing, an eps_r map: smoothing.hpp);
//   sigma: the conductivity of that material (S/m; 0 for pec);
//   material: the material index.
void material_values(const Model& m, const LocalDomain& dom, std::span<const MaterialIndex> index, int q,
                     const Box& cells, std::span<float> out, std::span<const NodeOverride> nodes = {});

}  // namespace tessera::fdtd
