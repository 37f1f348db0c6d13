#include "solvers/fdtd/materials.hpp"

#include <algorithm>

#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {

MaterialTable material_table(const Model& m) {
  MaterialTable t;
  for (const MaterialSpec& spec : m.materials) {
    if (spec.pec) {
      t.coeffs.push_back({0.0f, 0.0f, 0.0f, 0.0f});
      t.eps_r.push_back(1.0f);
      t.cb.push_back(0.0);
      continue;
    }
    const double eps = kEps0 * spec.eps_r;
    const double loss = spec.sigma * m.dt / (2 * eps);
    const double ca = (1 - loss) / (1 + loss);
    const double cb = m.dt / eps / (1 + loss);
    t.coeffs.push_back({static_cast<float>(ca), static_cast<float>(cb / m.cell_size[0]),
                        static_cast<float>(cb / m.cell_size[1]), static_cast<float>(cb / m.cell_size[2])});
    t.eps_r.push_back(static_cast<float>(spec.eps_r));
    t.cb.push_back(cb);
  }
  return t;
}

void paint_materials(const Model& m, const LocalDomain& dom, const Layout& layout, std::span<MaterialIndex> index) {
  std::fill(index.begin(), index.end(), static_cast<MaterialIndex>(m.background));
  if (m.shapes.empty()) return;
#pragma omp parallel for schedule(static) if (dom.n[1] * dom.n[2] > 64)
  for (std::int64_t k = 0; k < dom.n[2]; ++k) {
    for (std::int64_t j = 0; j < dom.n[1]; ++j) {
      for (std::int64_t i = 0; i < dom.n[0]; ++i) {
        const std::array<double, 3> centre{(dom.offset[0] + i + 0.5) * m.cell_size[0],
                                           (dom.offset[1] + j + 0.5) * m.cell_size[1],
                                           (dom.offset[2] + k + 0.5) * m.cell_size[2]};
        int mat = m.background;
        for (const Shape& s : m.shapes)
          if (s.contains(centre)) mat = s.material;
        index[static_cast<std::size_t>(layout.at(i, j, k))] = static_cast<MaterialIndex>(mat);
      }
    }
  }
}

HCoeffs h_coefficients(const Model& m) {
  return {static_cast<float>(m.dt / (kMu0 * m.cell_size[0])), static_cast<float>(m.dt / (kMu0 * m.cell_size[1])),
          static_cast<float>(m.dt / (kMu0 * m.cell_size[2]))};
}

}  // namespace tessera::fdtd
