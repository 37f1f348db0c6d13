#include "solvers/fdtd/dispersion.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/materials.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

Box dispersive_bounds(const Model& m) {
  const Box grid{{0, 0, 0}, m.cells};
  if (m.materials[static_cast<std::size_t>(m.background)].dispersive()) return grid;
  Box b{{0, 0, 0}, {0, 0, 0}};
  bool any = false;
  for (const Shape& s : m.shapes) {
    if (!m.materials[static_cast<std::size_t>(s.material)].dispersive()) continue;
    // Cells whose centre (i + 1/2) d can lie in the shape's bounds: lo/d - 1/2 <= i < hi/d - 1/2,
    // widened by a cell each way so rounding never loses one.
    const auto lo = s.lower(), hi = s.upper();
    Box c;
    for (int a = 0; a < 3; ++a) {
      c.lo[a] = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(lo[a] / m.cell_size[a] - 0.5)) - 1, 0,
                                         m.cells[a]);
      c.hi[a] = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(hi[a] / m.cell_size[a] - 0.5)) + 1, 0,
                                         m.cells[a]);
    }
    if (c.empty()) continue;
    if (!any) {
      b = c;
      any = true;
    } else {
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = std::min(b.lo[a], c.lo[a]);
        b.hi[a] = std::max(b.hi[a], c.hi[a]);
      }
    }
  }
  return b;
}

int pole_slots(const Model& m, std::array<bool, kMaxPoles>& lorentz) {
  lorentz.fill(false);
  int slots = 0;
  for (const MaterialSpec& spec : m.materials) {
    slots = std::max(slots, static_cast<int>(spec.poles.size()));
    for (std::size_t p = 0; p < spec.poles.size(); ++p)
      if (spec.poles[p].omega0 != 0) lorentz[p] = true;
  }
  return slots;
}

std::int64_t dispersion_bytes_per_cell(const Model& m) {
  std::array<bool, kMaxPoles> lorentz{};
  const int slots = pole_slots(m, lorentz);
  std::int64_t bytes = 0;
  for (int s = 0; s < slots; ++s) bytes += lorentz[static_cast<std::size_t>(s)] ? 24 : 12;
  return bytes;
}

namespace {

DispersiveMaterial coefficients(const MaterialSpec& spec, double cb, double dt) {
  DispersiveMaterial d;
  if (spec.pec) return d;  // E stays zero: no currents
  d.cb = static_cast<float>(cb);
  d.npoles = static_cast<int>(spec.poles.size());
  for (int p = 0; p < d.npoles; ++p) {
    const PoleSpec& pole = spec.poles[static_cast<std::size_t>(p)];
    const double a = 0.5 * pole.gamma * dt;
    d.pole[p].kj = static_cast<float>((1 - a) / (1 + a));
    d.pole[p].bj = static_cast<float>(kEps0 * pole.omega_p2 * dt / (1 + a));
    d.pole[p].bp = static_cast<float>(pole.omega0 * pole.omega0 * dt / (1 + a));
    d.pole[p].dt = static_cast<float>(dt);
  }
  return d;
}

}  // namespace

DispersionSetup dispersion_setup(const Model& m, const LocalDomain& dom, int uniform_material) {
  DispersionSetup s;
  s.slots = pole_slots(m, s.lorentz);
  if (s.slots == 0) return s;
  const Box global = dispersive_bounds(m);
  for (int a = 0; a < 3; ++a) {
    s.box.lo[a] = std::clamp<std::int64_t>(global.lo[a] - dom.offset[a], 0, dom.n[a]);
    s.box.hi[a] = std::clamp<std::int64_t>(global.hi[a] - dom.offset[a], 0, dom.n[a]);
    if (s.box.hi[a] < s.box.lo[a]) s.box.hi[a] = s.box.lo[a];
  }
  s.io_box = s.box;
  const MaterialTable t = material_table(m);
  if (uniform_material >= 0) {
    const auto u = static_cast<std::size_t>(uniform_material);
    s.table = {coefficients(m.materials[u], t.cb[u], m.dt)};
    if (s.table[0].npoles == 0) s.box = Box{};  // nothing dispersive on this rank
  } else {
    for (std::size_t i = 0; i < m.materials.size(); ++i) s.table.push_back(coefficients(m.materials[i], t.cb[i], m.dt));
  }
  return s;
}

}  // namespace tessera::fdtd
