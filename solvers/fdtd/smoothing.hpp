#pragma once
// E nodes whose update coefficients differ from their cell's material: sub-pixel smoothing of
// the nodes next to a dielectric interface, and the nodes of a real-valued eps_r map.
//
// The bulk kernels update every node with its cell's table entry (materials.hpp). The nodes
// listed here are redone afterwards from the E they held before the step (Engine::
// save_override_e / apply_override_e), with their own ca and cb: the same formula
// (curl_step_e), so every backend and decomposition gives the same bits, and the bulk kernels
// keep their speed.
//
// Smoothing (fdtd.smoothing = true) averages the medium over a cell-sized box centred on the
// node. Where two media A and B meet there, with volume fractions f_A + f_B = 1 and the
// interface normal n, the node's component c sees (Kottke, Farjadpour & Johnson 2008; MEEP):
//     1 / eps_c = n_c^2 (f_A / eps_A + f_B / eps_B) + (1 - n_c^2) / (f_A eps_A + f_B eps_B)
// the harmonic mean along the normal, the arithmetic mean across it; sigma is averaged
// arithmetically. The normal comes from the first moment of a 5 x 5 x 5 sample of the box (faces included),
// the interface's place along it by bisection, and f_B from the plane through that point cut
// by the box (exact for a plane parallel to a cell face). Boxes that touch a perfect conductor
// or a dispersive medium, or that hold three or more media without a plane between them, keep
// the staircase or use the samples' own fractions (docs/fdtd.md says which).
#include <cstdint>
#include <span>
#include <vector>

#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/materials.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// One E node's own coefficients: E <- ca E + (c1 (a - a-) - c2 (b - b-)) as in update_e_at,
// with c1, c2 the node's cb over the cell sizes of its two derivatives.
struct NodeOverride {
  std::int64_t index = 0;  // array index (Layout) of the cell
  int component = 0;       // 0, 1, 2: Ex, Ey, Ez
  float ca = 1, c1 = 0, c2 = 0;
  double eps_r = 1, sigma = 0;  // what the node sees, for the material output and sources
};

// The medium at a point: the background, then every shape in deck order.
struct PointMedium {
  int material = 0;
  double eps_r = 1, sigma = 0;
  bool operator==(const PointMedium&) const = default;
};
PointMedium medium_at(const Model& m, const std::array<double, 3>& p);

// The E-update coefficients of a node that sees eps_r and sigma (the table's formula).
NodeOverride node_coefficients(const Model& m, int component, double eps_r, double sigma);

// cb = dt / eps / (1 + s) of a node that sees eps_r and sigma (a soft source's scale).
double node_cb(const Model& m, double eps_r, double sigma);

// The overrides of this rank's own nodes, in array order (component fastest). `painted` is the
// material index the stepper painted (Layout-shaped); nodes whose cell lies in one of
// `excluded` (global cells: the CPML slabs, whose corrections use the table's cb) keep it.
std::vector<NodeOverride> node_overrides(const Model& m, const LocalDomain& dom, const Layout& layout,
                                         std::span<const MaterialIndex> painted, const std::vector<Box>& excluded);

}  // namespace tessera::fdtd
