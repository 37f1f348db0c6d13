#include "solvers/fdtd/cpml.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {
namespace {

struct Graded {
  double b, c, kinv_m1;
};

Graded graded(const Model& m, int axis, double depth) {
  const CpmlParams& p = m.cpml;
  const double u = std::clamp(depth, 0.0, 1.0);
  const double L = p.thickness * m.cell_size[axis];
  const double sigma_max = -(p.order + 1) * std::log(p.r0) / (2 * kEta0 * L);
  const double um = std::pow(u, p.order);
  const double sigma = u > 0 ? sigma_max * um : 0.0;
  const double kappa = 1 + (p.kappa_max - 1) * (u > 0 ? um : 0.0);
  const double alpha = p.alpha_max * (1 - u);
  const double b = std::exp(-(sigma / kappa + alpha) * m.dt / kEps0);
  const double c = sigma > 0 ? sigma * (b - 1) / (kappa * (sigma + kappa * alpha)) : 0.0;
  return {b, c, 1 / kappa - 1};
}

// Depth into the slab (0 at the interface, 1 at the wall) of a node at `x` cells.
double depth(const Model& m, int axis, int side, double x) {
  const double L = m.cpml.thickness;
  return side == 0 ? (L - x) / L : (x - (m.cells[axis] - L)) / L;
}

}  // namespace

std::string CpmlSlab::name() const {
  static const char* names[3][2] = {{"x_low", "x_high"}, {"y_low", "y_high"}, {"z_low", "z_high"}};
  return names[axis][side];
}

CpmlCoeffs cpml_coefficients(const Model& m, int axis, int side, double e_position, double h_position) {
  const Graded e = graded(m, axis, depth(m, axis, side, e_position));
  const Graded h = graded(m, axis, depth(m, axis, side, h_position));
  return {static_cast<float>(e.b), static_cast<float>(e.c), static_cast<float>(e.kinv_m1),
          static_cast<float>(h.b), static_cast<float>(h.c), static_cast<float>(h.kinv_m1)};
}

std::vector<CpmlSlab> cpml_slabs(const Model& m, const LocalDomain& dom) {
  std::vector<CpmlSlab> out;
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      if (m.faces[a][side] != FaceKind::cpml) continue;
      CpmlSlab s;
      s.axis = a;
      s.side = side;
      s.global = {{0, 0, 0}, m.cells};
      if (side == 0) s.global.hi[a] = m.cpml.thickness;
      else s.global.lo[a] = m.cells[a] - m.cpml.thickness;
      const Box mine = intersect(s.global, dom.global_box());
      s.local = mine.empty() ? Box{} : shifted(mine, {-dom.offset[0], -dom.offset[1], -dom.offset[2]});
      for (std::int64_t g = mine.lo[a]; g < mine.hi[a] && !mine.empty(); ++g)
        s.profile.push_back(cpml_coefficients(m, a, side, double(g), g + 0.5));
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace tessera::fdtd
