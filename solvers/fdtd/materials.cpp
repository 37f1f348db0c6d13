#include "solvers/fdtd/materials.hpp"

#include <algorithm>

#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/geometry/shape_data.hpp"

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
  // Plane by plane (bounded memory), shape by shape in deck order so later shapes overwrite
  // earlier ones; a cell belongs to a shape when its centre does.
  const std::int64_t plane = dom.n[0] * dom.n[1];
#pragma omp parallel for schedule(dynamic) if (dom.n[2] > 1 && plane > 64)
  for (std::int64_t k = 0; k < dom.n[2]; ++k) {
    std::vector<int> found(static_cast<std::size_t>(plane));
    Box cells = dom.global_box();
    cells.lo[2] = dom.offset[2] + k;
    cells.hi[2] = cells.lo[2] + 1;
    for (const Shape& s : m.shapes) {
      if (s.data) {
        s.data->material_at_centres(cells, m.cell_size, found);
      } else {
        const double z = (dom.offset[2] + k + 0.5) * m.cell_size[2];
        for (std::int64_t j = 0; j < dom.n[1]; ++j)
          for (std::int64_t i = 0; i < dom.n[0]; ++i)
            found[static_cast<std::size_t>(i + dom.n[0] * j)] =
                s.material_at({(dom.offset[0] + i + 0.5) * m.cell_size[0], (dom.offset[1] + j + 0.5) * m.cell_size[1], z});
      }
      for (std::int64_t j = 0; j < dom.n[1]; ++j)
        for (std::int64_t i = 0; i < dom.n[0]; ++i)
          if (const int f = found[static_cast<std::size_t>(i + dom.n[0] * j)]; f >= 0)
            index[static_cast<std::size_t>(layout.at(i, j, k))] = static_cast<MaterialIndex>(f);
    }
  }
}

HCoeffs h_coefficients(const Model& m) {
  return {static_cast<float>(m.dt / (kMu0 * m.cell_size[0])), static_cast<float>(m.dt / (kMu0 * m.cell_size[1])),
          static_cast<float>(m.dt / (kMu0 * m.cell_size[2]))};
}

}  // namespace tessera::fdtd
