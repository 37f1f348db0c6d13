#pragma once
// The material grid's quantities, as [[fdtd.volume]] components names them next to the fields
// (material_output.hpp writes them, material_grid.hpp computes them).
#include <string_view>

namespace tessera::fdtd {

// eps_x, eps_y, eps_z: the relative permittivity the Ex, Ey, Ez node of each cell sees;
// sigma: its conductivity (S/m); material: the index into Model::materials.
enum MaterialQuantity : int { kEpsX = 0, kEpsY, kEpsZ, kSigma, kMaterialNumber };
inline constexpr int kMaterialQuantities = 5;
inline constexpr const char* kMaterialQuantityName[kMaterialQuantities] = {"eps_x", "eps_y", "eps_z", "sigma",
                                                                           "material"};
inline constexpr const char* kMaterialQuantityUnits[kMaterialQuantities] = {"1", "1", "1", "S/m", "1"};

// The quantity called `name`, -1 for none.
inline int material_quantity_index(std::string_view name) {
  for (int q = 0; q < kMaterialQuantities; ++q)
    if (name == kMaterialQuantityName[q]) return q;
  return -1;
}

}  // namespace tessera::fdtd
