#pragma once
// The total-field/scattered-field box ([[fdtd.tfsf]]): inside the box the grid holds the total
// field, outside it the scattered field alone. A 1D Yee grid along the propagation axis, with
// the 3D grid's cell size, time step and background coefficients, carries the incident wave;
// every 3D update whose stencil straddles the box surface gets the incident value of the
// neighbour on the other side added (total side) or subtracted (scattered side):
//
//   H node with a term -s c_b (E_g[x + e_b] - E_g[x]):  dH = -s c_b (d(x + e_b) inc(x + e_b) - d(x) inc(x))
//   E node with a term +s cb_b (H_g[x] - H_g[x - e_b]): dE = +s cb_b (d(x) inc(x) - d(x - e_b) inc(x - e_b))
//
// with d(y) = +1 where the updated node is inside and y outside, -1 the other way round, 0 else.
// A node is inside when its position (cell index plus its Yee offset) lies in [lo, hi] on
// every axis. The 1D update uses the 3D formulas (yee.hpp) with the transverse terms zero, so
// at normal incidence in the background the 1D wave is the 3D grid's own plane wave, and the
// scattered region of an empty box holds only rounding (test FdtdTfsf.*).
//
// The 1D grid: E1 at u = u0 + i (the tangential E nodes' integer positions along the axis),
// H1 at u0 + i + 1/2; a hard source kLead cells before the face the wave enters, and past the
// other face a graded absorber of kAbsorber cells ending in a PEC node.
#include <cstdint>
#include <vector>

#include "solvers/fdtd/backend.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

class Tfsf {
 public:
  static constexpr int kLead = 8, kAbsorber = 60;

  // material_at(local index): the Material of a local cell (its E nodes' coefficients).
  template <class MaterialAt>
  Tfsf(const Model& m, const TfsfSpec& spec, const LocalDomain& dom, const Layout& layout, const Material& background,
       const HCoeffs& ch, MaterialAt&& material_at)
      : spec_(spec) {
    init_grid(m, background, ch);
    build_terms(dom, layout, ch, [&](std::int64_t c) { return material_at(c); });
  }

  const std::vector<TfsfTerm>& h_terms() const { return h_terms_; }
  const std::vector<TfsfTerm>& e_terms() const { return e_terms_; }

  // H1: (n - 1/2) -> (n + 1/2) from E1(n).
  void advance_h();
  // E1: n -> n + 1 from H1(n + 1/2); the source node gets amplitude x waveform((n + 1) dt).
  void advance_e(std::int64_t n, double dt);

  // The 1D state (checkpoints).
  std::vector<float>& e1() { return e1_; }
  std::vector<float>& h1() { return h1_; }

 private:
  template <class F>
  void build_terms(const LocalDomain& dom, const Layout& layout, const HCoeffs& ch, F&& material_at);
  void init_grid(const Model& m, const Material& background, const HCoeffs& ch);
  bool inside(int component, const Index3& cell) const;

  TfsfSpec spec_;
  std::int64_t u0_ = 0;  // u of E1[0]
  int source_ = 0;       // index of the hard source node
  std::vector<float> e1_, h1_;
  // Per 1D node: ca, cb (E) and da, db (H): the background's in the lossless part.
  std::vector<float> ca_, cb_, da_, db_;
  std::vector<TfsfTerm> h_terms_, e_terms_;
};

template <class F>
void Tfsf::build_terms(const LocalDomain& dom, const Layout& layout, const HCoeffs& ch, F&& material_at) {
  const int a = spec_.axis, ce = spec_.component;
  // The incident H component and its sign: E along p = a+1 pairs with +H1 along q = a+2,
  // E along q with -H1 along p (E x H along +axis for a wave travelling that way).
  const int p = (a + 1) % 3, q = (a + 2) % 3;
  const int chc = ce == p ? q : p;
  const float hsign = ce == p ? 1.0f : -1.0f;
  const float chv[3] = {ch.cx, ch.cy, ch.cz};
  Box scan = spec_.box;
  for (int d = 0; d < 3; ++d) {
    scan.lo[d] -= 1;
    scan.hi[d] += 2;  // node planes lo-1 .. hi+1
  }
  for (int comp = 0; comp < kComponents; ++comp) {
    const bool magnetic = comp >= 3;
    const int i = comp % 3;
    for (int t = 0; t < 2; ++t) {
      const int b = (i + 1 + t) % 3, g = (i + 2 - t) % 3;
      const float s = t == 0 ? 1.0f : -1.0f;
      if (magnetic ? g != ce : g != chc) continue;
      const int gcomp = magnetic ? g : 3 + g;
      for (std::int64_t z = scan.lo[2]; z < scan.hi[2]; ++z)
        for (std::int64_t y = scan.lo[1]; y < scan.hi[1]; ++y)
          for (std::int64_t x = scan.lo[0]; x < scan.hi[0]; ++x) {
            const Index3 node{x, y, z};
            if (!dom.owns(node)) continue;
            const bool in = inside(comp, node);
            Index3 y0 = node, y1 = node;
            y1[b] += magnetic ? 1 : -1;
            const auto delta = [&](const Index3& n) {
              const bool gin = inside(gcomp, n);
              return in && !gin ? 1.0f : !in && gin ? -1.0f : 0.0f;
            };
            const float d0 = delta(y0), d1 = delta(y1);
            if (d0 == 0.0f && d1 == 0.0f) continue;
            const std::int64_t c = layout.at(x - dom.offset[0], y - dom.offset[1], z - dom.offset[2]);
            float coef;
            if (magnetic) {
              coef = chv[b];
            } else {
              const Material mat = material_at(c);
              coef = (b == 0 ? mat.cbx : b == 1 ? mat.cby : mat.cbz) * hsign;
            }
            // H: -s c (d1 inc(y1) - d0 inc(y0));  E: +s cb (d0 inc(y0) - d1 inc(y1)).
            const float w0 = s * coef * d0, w1 = -s * coef * d1;
            TfsfTerm term{c, comp, -1, 0.0f, -1, 0.0f};
            const auto add = [&](float w, const Index3& n) {
              if (w == 0.0f) return;
              const int u = static_cast<int>(n[spec_.axis] - u0_);
              if (term.u0 < 0) {
                term.u0 = u;
                term.w0 = w;
              } else {
                term.u1 = u;
                term.w1 = w;
              }
            };
            add(w0, y0);
            add(w1, y1);
            (magnetic ? h_terms_ : e_terms_).push_back(term);
          }
    }
  }
}

}  // namespace tessera::fdtd
