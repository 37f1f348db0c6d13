#include "solvers/fdtd/tfsf.hpp"

#include <cmath>

#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {

bool Tfsf::inside(int component, const Index3& cell) const {
  const auto off = staggering(component);
  for (int d = 0; d < 3; ++d) {
    const std::int64_t pos2 = 2 * cell[d] + (off[d] != 0 ? 1 : 0);
    if (pos2 < 2 * spec_.box.lo[d] || pos2 > 2 * spec_.box.hi[d]) return false;
  }
  return true;
}

void Tfsf::init_grid(const Model& m, const Material& background, const HCoeffs& ch) {
  const int a = spec_.axis;
  const std::int64_t lo = spec_.box.lo[a], hi = spec_.box.hi[a];
  const std::int64_t n = (hi - lo) + 2 * kLead + kAbsorber + 1;
  u0_ = spec_.dir > 0 ? lo - kLead : lo - kLead - kAbsorber;
  source_ = spec_.dir > 0 ? 0 : static_cast<int>(n - 1);
  e1_.assign(static_cast<std::size_t>(n), 0.0f);
  h1_.assign(static_cast<std::size_t>(n), 0.0f);
  const float cb_a = a == 0 ? background.cbx : a == 1 ? background.cby : background.cbz;
  const float ch_a = a == 0 ? ch.cx : a == 1 ? ch.cy : ch.cz;
  ca_.assign(e1_.size(), background.ca);
  cb_.assign(e1_.size(), cb_a);
  da_.assign(e1_.size(), 1.0f);
  db_.assign(e1_.size(), ch_a);
  // The absorber: conductivity sigma (depth^3 grading) with the matched magnetic loss
  // sigma mu0 / eps, so the impedance stays the medium's; about 1e-6 of the amplitude comes back.
  const double d = m.cell_size[a];
  const double eps_bg = m.dt / (double(cb_a) * d);  // cb_a = dt / (eps d) for a lossless background
  const double sigma_max = 0.8 * 4 / (std::sqrt(kMu0 / eps_bg) * d);  // (m + 1) / (eta d), m = 3, x0.8
  for (int k = 0; k < kAbsorber; ++k) {
    const double depth = (k + 0.5) / kAbsorber;
    const double se = sigma_max * depth * depth * depth * m.dt / (2 * eps_bg);
    // E and H nodes at depth k into the absorber from the box side.
    const std::int64_t i = spec_.dir > 0 ? n - kAbsorber + k : kAbsorber - 1 - k;
    ca_[static_cast<std::size_t>(i)] = static_cast<float>((1 - se) / (1 + se));
    cb_[static_cast<std::size_t>(i)] = static_cast<float>(double(cb_a) / (1 + se));
    da_[static_cast<std::size_t>(i)] = static_cast<float>((1 - se) / (1 + se));
    db_[static_cast<std::size_t>(i)] = static_cast<float>(double(ch_a) / (1 + se));
  }
}

void Tfsf::advance_h() {
  const std::size_t n = h1_.size();
  // H1[i] sits between E1[i] and E1[i + 1]; the last one's upper neighbour is a PEC node.
  for (std::size_t i = 0; i < n; ++i) {
    const float up = i + 1 < n ? e1_[i + 1] : 0.0f;
    if (da_[i] == 1.0f)
      h1_[i] = curl_step_h(h1_[i], db_[i], up, e1_[i], 0.0f, 0.0f, 0.0f);  // the 3D formula, transverse terms 0
    else
      h1_[i] = da_[i] * h1_[i] - db_[i] * (up - e1_[i]);
  }
}

void Tfsf::advance_e(std::int64_t step, double dt) {
  const std::size_t n = e1_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const float down = i > 0 ? h1_[i - 1] : 0.0f;
    e1_[i] = curl_step_e(e1_[i], ca_[i], 0.0f, 0.0f, 0.0f, cb_[i], h1_[i], down);
  }
  // The end away from the source is a PEC node; the source node is hard.
  e1_[spec_.dir > 0 ? n - 1 : 0] = 0.0f;
  e1_[static_cast<std::size_t>(source_)] =
      static_cast<float>(spec_.amplitude * spec_.waveform((double(step) + 1) * dt));
}

}  // namespace tessera::fdtd
