#pragma once
// The Yee update formulas, once, for both backends (TESSERA_HD). Every kernel and every launch
// mapping (the own kernels, the seed's variants, the cpu loops) evaluates exactly these float
// operations in this order, and the fdtd sources are compiled without FMA contraction
// (-ffp-contract=off, nvcc -fmad=false), so a cell's new value does not depend on which kernel,
// backend, rank or decomposition computed it.
//
// Coefficients carry the cell size: differences of neighbouring values are multiplied by
// dt / (mu0 d) (H) or cb / d (E), never divided.
#include <cstdint>

#include "core/hd.hpp"

namespace tessera::fdtd {

// The per-cell material index. uint8 keeps the E update at 73 bytes per cell; a grid that
// needs more than 256 materials can use uint16 here (one more byte per cell) and nothing else
// changes.
using MaterialIndex = std::uint8_t;

// One material's E-update coefficients (16 bytes: one vector load on the GPU).
//   E <- ca E + cb (curl H),  ca = (1 - s) / (1 + s),  cb = dt / eps / (1 + s),  s = sigma dt / (2 eps)
// cbx = cb / dx etc. A perfect conductor has ca = cb = 0.
struct alignas(16) Material {
  float ca = 1, cbx = 0, cby = 0, cbz = 0;
};

// dt / (mu0 d) per axis (non-magnetic media: the same in every cell).
struct HCoeffs {
  float cx = 0, cy = 0, cz = 0;
};

// H <- H - (c1 (a+ - a) - c2 (b+ - b)): one H component from two E differences.
TESSERA_HD float curl_step_h(float h, float c1, float a_plus, float a, float c2, float b_plus, float b) {
  return h - (c1 * (a_plus - a) - c2 * (b_plus - b));
}

// E <- ca E + (c1 (a - a-) - c2 (b - b-)): one E component from two H differences.
TESSERA_HD float curl_step_e(float e, float ca, float c1, float a, float a_minus, float c2, float b, float b_minus) {
  return ca * e + (c1 * (a - a_minus) - c2 * (b - b_minus));
}

// Array bases of the six components (comm::HaloLayout / fdtd::Layout indexing).
struct FieldPtrs {
  float* e[3];
  float* h[3];
};

// H update of the cell at array index c (sy, sz: strides of y and z).
TESSERA_HD void update_h_at(const FieldPtrs& f, std::int64_t c, std::int64_t sy, std::int64_t sz, const HCoeffs& k) {
  const float ex = f.e[0][c], ey = f.e[1][c], ez = f.e[2][c];
  f.h[0][c] = curl_step_h(f.h[0][c], k.cy, f.e[2][c + sy], ez, k.cz, f.e[1][c + sz], ey);
  f.h[1][c] = curl_step_h(f.h[1][c], k.cz, f.e[0][c + sz], ex, k.cx, f.e[2][c + 1], ez);
  f.h[2][c] = curl_step_h(f.h[2][c], k.cx, f.e[1][c + 1], ey, k.cy, f.e[0][c + sy], ex);
}

// E update of the cell at array index c with material m.
TESSERA_HD void update_e_at(const FieldPtrs& f, std::int64_t c, std::int64_t sy, std::int64_t sz, const Material& m) {
  const float hx = f.h[0][c], hy = f.h[1][c], hz = f.h[2][c];
  f.e[0][c] = curl_step_e(f.e[0][c], m.ca, m.cby, hz, f.h[2][c - sy], m.cbz, hy, f.h[1][c - sz]);
  f.e[1][c] = curl_step_e(f.e[1][c], m.ca, m.cbz, hx, f.h[0][c - sz], m.cbx, hz, f.h[2][c - 1]);
  f.e[2][c] = curl_step_e(f.e[2][c], m.ca, m.cbx, hy, f.h[1][c - 1], m.cby, hx, f.h[0][c - sy]);
}

// One E component of the cell at array index c with the node's own coefficients (smoothing.hpp):
// update_e_at's formula for that component, from the node's E before the step.
TESSERA_HD float node_e_at(const FieldPtrs& f, std::int64_t c, std::int64_t sy, std::int64_t sz, int component,
                           float e_old, float ca, float c1, float c2) {
  if (component == 0) return curl_step_e(e_old, ca, c1, f.h[2][c], f.h[2][c - sy], c2, f.h[1][c], f.h[1][c - sz]);
  if (component == 1) return curl_step_e(e_old, ca, c1, f.h[0][c], f.h[0][c - sz], c2, f.h[2][c], f.h[2][c - 1]);
  return curl_step_e(e_old, ca, c1, f.h[1][c], f.h[1][c - 1], c2, f.h[0][c], f.h[0][c - sy]);
}

// A node that the step redoes with its own coefficients (smoothing.hpp), as the engines store it.
struct NodeCoeffs {
  std::int64_t index;
  int component;
  float ca, c1, c2;
};

// ---- CPML (convolutional PML, Roden & Gedney 2000), as corrections after the bulk update ----
// Inside a slab normal to axis a, a component whose update has a derivative d/da gets
//   psi <- b psi + c D,        f <- f + s (kinv_m1 D + psi)
// with D the raw difference of the neighbouring values along a (psi is kept in those units),
// kinv_m1 = 1/kappa - 1, and s = +-(cb / da) for E or +-(dt / (mu0 da)) for H with the sign
// of the term in the curl. For slab axis a, with (p, q) = (a+1, a+2) mod 3:
//   E_p gets -dH_q/da,  E_q gets +dH_p/da,  H_p gets +dE_q/da,  H_q gets -dE_p/da.
TESSERA_HD float cpml_psi(float psi, float b, float c, float d) { return b * psi + c * d; }
TESSERA_HD float cpml_correct(float f, float s, float kinv_m1, float d, float psi) {
  return f + s * (kinv_m1 * d + psi);
}

// A current sheet of surface density k (A/m) on an E node: J = k / d_axis, so E -= (cb / d_axis) k.
TESSERA_HD float sheet_step(float e, float cb_axis, float k) { return e - cb_axis * k; }

// A TFSF correction (tfsf.hpp): the incident value `inc` of a neighbour across the box surface,
// weighted by the update's coefficient and sign.
TESSERA_HD float tfsf_step(float f, float w, float inc) { return f + w * inc; }

// One term of a running DFT (float64; no contraction, so both backends give the same bits).
TESSERA_HD double dft_add(double acc, double value, double phasor) { return acc + value * phasor; }

// Profiles of one slab along its axis, per local cell index along the axis: E nodes sit on the
// cell's low face, H nodes half a cell above.
struct CpmlCoeffs {
  float be, ce, ke;  // E nodes: b, c, 1/kappa - 1
  float bh, ch, kh;  // H nodes
};

// ---- test and benchmark data ----
// A pseudo-random value in [-1, 1) from (seed, component, global cell): the same on every
// backend and decomposition, so fields filled with it can be compared anywhere.
TESSERA_HD float random_field_value(std::uint64_t seed, int component, std::int64_t gi, std::int64_t gj,
                                    std::int64_t gk) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(component) * 0xD1B54A32D192ED03ull;
  x ^= static_cast<std::uint64_t>(gi) + 0x632BE59BD9B4E019ull * static_cast<std::uint64_t>(gj) +
       0x8CB92BA72F3D8DD7ull * static_cast<std::uint64_t>(gk);
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  // 24 random bits -> [-1, 1) exactly representable in float.
  return static_cast<float>(static_cast<std::int64_t>(x >> 40) - (1ll << 23)) * (1.0f / static_cast<float>(1 << 23));
}

}  // namespace tessera::fdtd
