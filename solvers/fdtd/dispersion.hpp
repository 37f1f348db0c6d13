#pragma once
// Dispersive materials: Drude and Lorentz poles, updated by an auxiliary differential equation
// (ADE) for the polarisation current J_p = dP_p/dt of each pole, per E component, in the cells
// of dispersive materials. For a pole with forcing w_p^2 (Drude: the plasma frequency squared;
// Lorentz: delta_eps w_0^2), resonance w_0 (Drude: 0) and damping gamma (rad/s):
//
//   dJ/dt + gamma J + w_0^2 P = eps0 w_p^2 E,    dP/dt = J
//
// centred at t = n dt, with J at half steps and P at whole steps (MEEP's susceptibility scheme,
// written for J; second order):
//
//   J(n+1/2) = kj J(n-1/2) + bj E(n) - bp P(n),   P(n+1) = P(n) + dt J(n+1/2)
//   kj = (1 - gamma dt/2) / (1 + gamma dt/2),  bj = eps0 w_p^2 dt / (1 + gamma dt/2),
//   bp = w_0^2 dt / (1 + gamma dt/2)
//
// and E(n+1) = [the Yee update with eps_inf, sigma] - cb sum_p J_p(n+1/2). J(n+1/2) needs only
// E(n), so the E update computes it from the old E in the same pass: no extra half step. The
// permittivity the grid sees is eps_inf + sum w_p^2 / (w_0^2 - W^2 - i gamma W cos(w dt/2))
// with W = (2/dt) sin(w dt/2): the continuum's to O((w dt)^2).
//
// Storage: J (and P, for a slot where some material's pole is a Lorentz pole) per pole slot and
// E component, float32, dense over the box of cells that dispersive shapes can cover (the
// global bounds of dispersive_bounds, cut to the rank): 12 bytes per Drude pole and cell, 24
// per Lorentz pole, only inside that box.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/hd.hpp"
#include "solvers/fdtd/grid.hpp"

namespace tessera::fdtd {

struct Model;

inline constexpr int kMaxPoles = 4;  // poles per material (Drude and Lorentz together)

// The discrete pole (float32 coefficients, as both engines use them).
struct PoleCoeffs {
  float kj = 0, bj = 0, bp = 0, dt = 0;  // bp == 0: a Drude pole (no P)
};

// One material's poles and its cb = dt / eps / (1 + s) (the J term's coefficient).
struct alignas(16) DispersiveMaterial {
  PoleCoeffs pole[kMaxPoles];
  float cb = 0;
  int npoles = 0;
  int pad[2]{};
};

// Device (or host) pointers of the J and P arrays and the table, for the E update.
struct DispersionView {
  float* j[kMaxPoles][3]{};
  float* p[kMaxPoles][3]{};  // null where no material has a Lorentz pole in that slot
  const DispersiveMaterial* table = nullptr;
  Box box;  // local cells the arrays cover (dense, x fastest)
  bool active() const { return !box.empty(); }
};

// The new E of a dispersive cell's component `comp`: the poles' J(n+1/2) from E(n) = e_old,
// then e_new (the Yee update) - cb sum J. d: the cell's index in the dense box. The same
// float operations in the same order on both engines.
TESSERA_HD float pole_current(float j, float kj, float bj, float e) { return kj * j + bj * e; }
TESSERA_HD float dispersive_e(float e_old, float e_new, const DispersiveMaterial& m, const DispersionView& v,
                              int comp, std::int64_t d) {
  float jsum = 0.0f;
  for (int s = 0; s < m.npoles; ++s) {
    const PoleCoeffs pc = m.pole[s];
    float* j = v.j[s][comp];
    float jn = pole_current(j[d], pc.kj, pc.bj, e_old);
    if (pc.bp != 0.0f) {
      float* p = v.p[s][comp];
      const float pn = p[d];
      jn = jn - pc.bp * pn;
      p[d] = pn + pc.dt * jn;
    }
    j[d] = jn;
    jsum = jsum + jn;
  }
  return e_new - m.cb * jsum;
}

// Dense index of local cell (i, j, k) in the view's box, or -1 outside it.
TESSERA_HD std::int64_t dispersion_index(const DispersionView& v, std::int64_t i, std::int64_t j, std::int64_t k) {
  if (i < v.box.lo[0] || i >= v.box.hi[0] || j < v.box.lo[1] || j >= v.box.hi[1] || k < v.box.lo[2] ||
      k >= v.box.hi[2])
    return -1;
  return ((k - v.box.lo[2]) * (v.box.hi[1] - v.box.lo[1]) + (j - v.box.lo[1])) * (v.box.hi[0] - v.box.lo[0]) +
         (i - v.box.lo[0]);
}

// What an engine needs: the local box, the table (indexed like the material table), which
// slots keep P, and the slot count.
struct DispersionSetup {
  Box box;     // the arrays' cells (empty on a rank without dispersive cells)
  Box io_box;  // this rank's part of the global bounds (checkpoints cover these)
  std::vector<DispersiveMaterial> table;
  int slots = 0;
  std::array<bool, kMaxPoles> lorentz{};
  bool active() const { return slots > 0 && !box.empty(); }
};

// Global cells (a box) that every cell of a dispersive material lies in: the grid when the
// background is dispersive, else the union of the bounds of the shapes of dispersive materials.
// Empty when nothing is dispersive. Rank-independent: checkpoints use it as their dataset shape.
Box dispersive_bounds(const Model& m);

// The engine set-up of this rank (`uniform_material` >= 0: the rank's one material, whose entry
// becomes table[0] as the engines' uniform mode expects).
DispersionSetup dispersion_setup(const Model& m, const LocalDomain& dom, int uniform_material);

// Slots in use (the most poles of any material) and which keep P, from the whole model.
int pole_slots(const Model& m, std::array<bool, kMaxPoles>& lorentz);

// Bytes of J and P per cell of the dispersive box (memory estimate and docs).
std::int64_t dispersion_bytes_per_cell(const Model& m);

}  // namespace tessera::fdtd
