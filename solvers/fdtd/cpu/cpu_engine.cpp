// The cpu engine: OpenMP loops over (k, j) with x innermost, evaluating the yee.hpp formulas.
// It is the reference the cuda engine is tested against.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "solvers/fdtd/backend.hpp"

namespace tessera::fdtd {
namespace {

// Below this many cells a loop runs on one thread: tiny boxes (shells, planes, test grids on
// oversubscribed ranks) would spend longer waking threads than computing.
constexpr std::int64_t kParallelCells = 32768;

class CpuEngine final : public Engine {
 public:
  CpuEngine(const LocalDomain& domain, const HCoeffs& ch) : Engine(domain, ch) {
    // Room for a z neighbour's planes (the blocked sweep across ranks), as the cuda engine has.
    deep_planes_ = blocked_deep_planes(domain_);
    lead_ = kLeadPad + deep_planes_ * layout_.plane();
    const auto n = static_cast<std::size_t>(allocation_elements(layout_) + 2 * deep_planes_ * layout_.plane());
    for (int c = 0; c < kComponents; ++c) {
      store_[c].assign(n, 0.0f);
      base_[c] = store_[c].data() + lead_;
    }
    mat_store_.assign(n, 0);
    table_ = {Material{}};
    eps_r_ = {1.0f};
  }

  Backend backend() const override { return Backend::cpu; }

  void set_materials(std::span<const MaterialIndex> index, const MaterialTable& table, bool uniform) override {
    if (static_cast<std::int64_t>(index.size()) != layout_.elements())
      throw std::logic_error("CpuEngine::set_materials: index size differs from the layout");
    std::copy(index.begin(), index.end(), mat_store_.begin() + lead_);
    table_ = table.coeffs;
    eps_r_ = table.eps_r;
    uniform_ = uniform;
  }

  void set_overrides(std::span<const NodeCoeffs> nodes) override {
    nodes_.assign(nodes.begin(), nodes.end());
    node_e_.assign(nodes_.size(), 0.0f);
  }
  void save_override_e() override {
    const std::int64_t n = static_cast<std::int64_t>(nodes_.size());
#pragma omp parallel for if (n > kParallelCells)
    for (std::int64_t q = 0; q < n; ++q) node_e_[q] = base_[nodes_[q].component][nodes_[q].index];
  }
  void apply_override_e() override {
    const FieldPtrs f{{base_[kEx], base_[kEy], base_[kEz]}, {base_[kHx], base_[kHy], base_[kHz]}};
    const std::int64_t n = static_cast<std::int64_t>(nodes_.size()), sy = layout_.pitch, sz = layout_.plane();
#pragma omp parallel for if (n > kParallelCells)
    for (std::int64_t q = 0; q < n; ++q) {
      const NodeCoeffs& o = nodes_[q];
      base_[o.component][o.index] = node_e_at(f, o.index, sy, sz, o.component, node_e_[q], o.ca, o.c1, o.c2);
    }
  }

  void set_cpml(const std::vector<CpmlSlab>& slabs) override {
    slabs_.clear();
    for (const CpmlSlab& s : slabs) {
      SlabState st{s, {}};
      for (auto& p : st.psi) p.assign(static_cast<std::size_t>(s.local.cells()), 0.0f);
      slabs_.push_back(std::move(st));
    }
  }

  void set_samples(std::span<const Sample> samples, int max_rows) override {
    samples_.assign(samples.begin(), samples.end());
    rows_.assign(samples_.size() * static_cast<std::size_t>(max_rows), 0.0f);
    max_rows_ = max_rows;
  }

  void download(int c, std::span<float> host) override {
    check_size(host.size(), "download");
    std::copy_n(base_[c], host.size(), host.data());
  }
  void upload(int c, std::span<const float> host) override {
    check_size(host.size(), "upload");
    std::copy(host.begin(), host.end(), base_[c]);
  }
  void download_psi(int slab, int which, std::span<float> host) override {
    const auto& p = slabs_.at(slab).psi.at(which);
    if (host.size() != p.size()) throw std::logic_error("CpuEngine::download_psi: size mismatch");
    std::copy(p.begin(), p.end(), host.begin());
  }
  void upload_psi(int slab, int which, std::span<const float> host) override {
    auto& p = slabs_.at(slab).psi.at(which);
    if (host.size() != p.size()) throw std::logic_error("CpuEngine::upload_psi: size mismatch");
    std::copy(host.begin(), host.end(), p.begin());
  }

  void fill_random(std::uint64_t seed) override {
    const auto& n = domain_.n;
    const auto& o = domain_.offset;
    for (int c = 0; c < kComponents; ++c)
#pragma omp parallel for collapse(2) if (n[0] * n[1] * n[2] > kParallelCells)
      for (std::int64_t k = 0; k < n[2]; ++k)
        for (std::int64_t j = 0; j < n[1]; ++j)
          for (std::int64_t i = 0; i < n[0]; ++i)
            base_[c][layout_.at(i, j, k)] = random_field_value(seed, c, o[0] + i, o[1] + j, o[2] + k);
  }

  void* base(int c) override { return base_[c]; }

  void update_h(const Box& b) override {
    if (b.empty()) return;
    const std::int64_t sy = layout_.pitch, sz = layout_.plane();
    const HCoeffs k = ch_;
#pragma omp parallel for collapse(2) if (b.cells() > kParallelCells)
    for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z) {
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y) {
        float* __restrict hx = base_[kHx];
        float* __restrict hy = base_[kHy];
        float* __restrict hz = base_[kHz];
        const float* __restrict ex = base_[kEx];
        const float* __restrict ey = base_[kEy];
        const float* __restrict ez = base_[kEz];
        const std::int64_t row = layout_.at(0, y, z);
        for (std::int64_t x = b.lo[0]; x < b.hi[0]; ++x) {
          const std::int64_t c = row + x;
          hx[c] = curl_step_h(hx[c], k.cy, ez[c + sy], ez[c], k.cz, ey[c + sz], ey[c]);
          hy[c] = curl_step_h(hy[c], k.cz, ex[c + sz], ex[c], k.cx, ez[c + 1], ez[c]);
          hz[c] = curl_step_h(hz[c], k.cx, ey[c + 1], ey[c], k.cy, ex[c + sy], ex[c]);
        }
      }
    }
  }

  void set_tfsf(std::span<const TfsfTerm> h_terms, std::span<const TfsfTerm> e_terms) override {
    tfsf_[0].assign(h_terms.begin(), h_terms.end());
    tfsf_[1].assign(e_terms.begin(), e_terms.end());
  }
  void apply_tfsf(bool electric, std::span<const float> inc) override {
    const auto& terms = tfsf_[electric ? 1 : 0];
    for (const TfsfTerm& t : terms) {
      float& f = base_[t.component][t.index];
      float v = tfsf_step(f, t.w0, inc[static_cast<std::size_t>(t.u0)]);
      if (t.u1 >= 0) v = tfsf_step(v, t.w1, inc[static_cast<std::size_t>(t.u1)]);
      f = v;
    }
  }

  void set_dispersion(const DispersionSetup& setup) override {
    disp_ = DispersionView{};
    disp_table_ = setup.table;
    for (auto& slot : pol_)
      for (auto& a : slot) a.clear();
    if (!setup.active()) return;
    const auto cells = static_cast<std::size_t>(setup.box.cells());
    for (int s = 0; s < setup.slots; ++s)
      for (int c = 0; c < 3; ++c) {
        pol_[s][c].assign(cells, 0.0f);
        disp_.j[s][c] = pol_[s][c].data();
        if (setup.lorentz[static_cast<std::size_t>(s)]) {
          pol_[kMaxPoles + s][c].assign(cells, 0.0f);
          disp_.p[s][c] = pol_[kMaxPoles + s][c].data();
        }
      }
    disp_.table = disp_table_.data();
    disp_.box = setup.box;
  }
  void download_polarisation(int slot, int which, int comp, std::span<float> host) override {
    const auto& a = polarisation(slot, which, comp);
    if (host.size() != a.size()) throw std::logic_error("CpuEngine::download_polarisation: size mismatch");
    std::copy(a.begin(), a.end(), host.begin());
  }
  void upload_polarisation(int slot, int which, int comp, std::span<const float> host) override {
    auto& a = polarisation(slot, which, comp);
    if (host.size() != a.size()) throw std::logic_error("CpuEngine::upload_polarisation: size mismatch");
    std::copy(host.begin(), host.end(), a.begin());
  }

  void update_e(const Box& b) override {
    if (b.empty()) return;
    // A box clear of the dispersive box is plain Yee: no per-cell look-up of poles.
    if (intersect(b, disp_.box).empty()) return sweep_e(b, [](auto&&...) {});
    // In cells of a material with poles, the ADE currents from the old E (dispersion.hpp).
    const DispersionView v = disp_;
    sweep_e(b, [&v](std::int64_t x, std::int64_t y, std::int64_t z, int mi, const float(&e_old)[3],
                    float(&e_new)[3]) {
      const DispersiveMaterial& dm = v.table[mi];
      const std::int64_t d = dm.npoles > 0 ? dispersion_index(v, x, y, z) : -1;
      if (d < 0) return;
      for (int comp = 0; comp < 3; ++comp) e_new[comp] = dispersive_e(e_old[comp], e_new[comp], dm, v, comp, d);
    });
  }

  // The Yee E update over box b (x innermost). `cell_step(x, y, z, material, e_old, e_new)`
  // may change a cell's new Ex, Ey, Ez before they are stored: one loop for both updates, so
  // the plain and the dispersive cells get the same Yee arithmetic.
  template <typename CellStep>
  void sweep_e(const Box& b, const CellStep& cell_step) {
    const std::int64_t sy = layout_.pitch, sz = layout_.plane();
    const Material* table = table_.data();
    const MaterialIndex* mat = mat_base();
    const bool uniform = uniform_;
#pragma omp parallel for collapse(2) if (b.cells() > kParallelCells)
    for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z) {
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y) {
        float* __restrict ex = base_[kEx];
        float* __restrict ey = base_[kEy];
        float* __restrict ez = base_[kEz];
        const float* __restrict hx = base_[kHx];
        const float* __restrict hy = base_[kHy];
        const float* __restrict hz = base_[kHz];
        const std::int64_t row = layout_.at(0, y, z);
        for (std::int64_t x = b.lo[0]; x < b.hi[0]; ++x) {
          const std::int64_t c = row + x;
          const int mi = uniform ? 0 : mat[c];
          const Material m = table[mi];
          const float e_old[3] = {ex[c], ey[c], ez[c]};
          float e_new[3] = {curl_step_e(e_old[0], m.ca, m.cby, hz[c], hz[c - sy], m.cbz, hy[c], hy[c - sz]),
                            curl_step_e(e_old[1], m.ca, m.cbz, hx[c], hx[c - sz], m.cbx, hz[c], hz[c - 1]),
                            curl_step_e(e_old[2], m.ca, m.cbx, hy[c], hy[c - 1], m.cby, hx[c], hx[c - sy])};
          cell_step(x, y, z, mi, e_old, e_new);
          ex[c] = e_new[0];
          ey[c] = e_new[1];
          ez[c] = e_new[2];
        }
      }
    }
  }

  std::vector<float>& polarisation(int slot, int which, int comp) {
    if (slot < 0 || slot >= kMaxPoles || which < 0 || which > 1 || comp < 0 || comp > 2)
      throw std::logic_error("CpuEngine::polarisation: no such array");
    return pol_[static_cast<std::size_t>(which * kMaxPoles + slot)][static_cast<std::size_t>(comp)];
  }

  void cpml_e(int s) override { cpml(s, true); }
  void cpml_h(int s) override { cpml(s, false); }

  void zero_tangential_e(int axis) override { zero_tangential_e_in(axis, domain_.local()); }

  // ---- the blocked sweep: a reference, not a faster update (backend.hpp) ----
  bool enable_blocked(int steps, std::string& why, BlockedTiling) override {
    why = blocked_refusal(domain_, steps, deep_planes_, !slabs_.empty(),
                          !disp_.box.empty() || !tfsf_[0].empty() || !tfsf_[1].empty());
    if (!why.empty()) return false;
    // The previous copy (backend.hpp: the pass reads one copy and leaves it intact).
    for (int c = 0; c < kComponents; ++c) spare_store_[c].assign(store_[c].size(), 0.0f);
    blocked_steps_ = steps;
    return true;
  }

  void swap_copies() override {
    if (spare_store_[0].empty()) throw std::logic_error("CpuEngine::swap_copies without enable_blocked");
    for (int c = 0; c < kComponents; ++c) {
      store_[c].swap(spare_store_[c]);  // the vectors' buffers trade places, base_ follows
      base_[c] = store_[c].data() + lead_;
    }
  }

  // The steps one after the other, each over the layers whose values stay exact: with a z
  // neighbour whose `steps` planes lie beyond a face (Ghosts::exchange_pass), level s's E is
  // exact up to steps - s planes beyond it and its H one plane further down (E reads H at -z),
  // so the own cells are exact after the last step, as in the cuda pass. A periodic axis this
  // rank spans alone wraps its ghost layer before each update (no exchange runs in a pass).
  // CPML slabs (one rank only) get their corrections after each update, as in a split step.
  void update_blocked(int steps, SweepPart part) override {
    if (part == SweepPart::inner) return;  // a reference: the whole pass in the outer part
    if (blocked_steps_ == 0 || steps < 2 || steps > blocked_steps_)
      throw std::logic_error("CpuEngine::update_blocked: " + std::to_string(steps) + " steps, enabled for 2.." +
                             std::to_string(blocked_steps_));
    // On a copy: the fields before the pass stay in the previous one.
    for (int c = 0; c < kComponents; ++c) std::copy(store_[c].begin(), store_[c].end(), spare_store_[c].begin());
    swap_copies();
    const Index3& n = domain_.n;
    const bool lo = domain_.remote(2, 0), hi = domain_.remote(2, 1);
    for (int s = 1; s <= steps; ++s) {
      const std::int64_t beyond = steps - s;
      Box e_box{{0, 0, lo ? -beyond : 0}, {n[0], n[1], n[2] + (hi ? beyond : 0)}};
      Box h_box = e_box;
      if (lo) h_box.lo[2] -= 1;
      wrap_alone(true, h_box);
      update_h(h_box);
      for (std::size_t q = 0; q < slabs_.size(); ++q) cpml(static_cast<int>(q), false);  // one rank: whole slabs
      wrap_alone(false, e_box);
      update_e(e_box);
      for (std::size_t q = 0; q < slabs_.size(); ++q) cpml(static_cast<int>(q), true);
      for (int a = 0; a < 3; ++a)
        if (!domain_.neighbour[a][0]) zero_tangential_e_in(a, e_box);
    }
  }
  int deep_planes() const override { return deep_planes_; }
  void* material_base() override { return mat_store_.data() + lead_; }

  void apply_kicks(std::span<const Kick> kicks) override {
    for (const Kick& k : kicks) {
      float& f = base_[k.component][k.index];
      f = k.hard ? k.value : f + k.value;
    }
  }

  void add_sheet(int component, int axis, std::int64_t layer, float k) override {
    Box plane = domain_.local();
    plane.lo[axis] = layer;
    plane.hi[axis] = layer + 1;
    const Material* table = table_.data();
    const MaterialIndex* mat = mat_base();
    float* __restrict e = base_[component];
#pragma omp parallel for collapse(2) if (plane.cells() > kParallelCells)
    for (std::int64_t z = plane.lo[2]; z < plane.hi[2]; ++z)
      for (std::int64_t y = plane.lo[1]; y < plane.hi[1]; ++y)
        for (std::int64_t x = plane.lo[0]; x < plane.hi[0]; ++x) {
          const std::int64_t c = layout_.at(x, y, z);
          const Material& m = table[uniform_ ? 0 : mat[c]];
          e[c] = sheet_step(e[c], axis == 0 ? m.cbx : axis == 1 ? m.cby : m.cbz, k);
        }
  }

  int add_dft(const DftRegion& r) override {
    for (int a = 0; a < 3; ++a)
      if (r.box.lo[a] < -1 || r.box.hi[a] > domain_.n[a] || r.box.empty())
        throw std::logic_error("CpuEngine::add_dft: region outside the local grid");
    dft_.push_back({r, std::vector<double>(static_cast<std::size_t>(r.elements()), 0.0)});
    return static_cast<int>(dft_.size()) - 1;
  }

  void accumulate_dft(int id, std::span<const double> re, std::span<const double> im) override {
    Dft& d = dft_.at(static_cast<std::size_t>(id));
    const Box& b = d.region.box;
    const int nf = d.region.nfreq;
    if (static_cast<int>(re.size()) != nf || static_cast<int>(im.size()) != nf)
      throw std::logic_error("CpuEngine::accumulate_dft: phasor count differs from the region's");
    const std::int64_t cells = b.cells(), ex = b.extent(0), ey = b.extent(1);
    const float* field = base_[d.region.component];
    double* acc = d.acc.data();
    // Rows in parallel; per row, frequencies outer and x inner: each frequency's accumulators
    // of the row are contiguous (a frequency-inner loop strides 16 bytes x cells between
    // stores, which for power-of-two planes lands every store in one cache set). Each
    // accumulator still gets its one term per call, so the order of its sum is the same.
#pragma omp parallel for collapse(2) if (cells * nf > kParallelCells)
    for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z)
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y) {
        const std::int64_t row = ((z - b.lo[2]) * ey + (y - b.lo[1])) * ex;
        const float* in = field + layout_.at(b.lo[0], y, z);
        for (int f = 0; f < nf; ++f) {
          double* __restrict ar = acc + 2 * std::int64_t(f) * cells + row;
          double* __restrict ai = ar + cells;
          const double pr = re[static_cast<std::size_t>(f)], pi = im[static_cast<std::size_t>(f)];
          for (std::int64_t x = 0; x < ex; ++x) {
            const double v = in[x];
            ar[x] = dft_add(ar[x], v, pr);
            ai[x] = dft_add(ai[x], v, pi);
          }
        }
      }
  }

  void download_dft(int id, std::span<double> host) override {
    const auto& a = dft_.at(static_cast<std::size_t>(id)).acc;
    if (host.size() != a.size()) throw std::logic_error("CpuEngine::download_dft: size mismatch");
    std::copy(a.begin(), a.end(), host.begin());
  }
  void upload_dft(int id, std::span<const double> host) override {
    auto& a = dft_.at(static_cast<std::size_t>(id)).acc;
    if (host.size() != a.size()) throw std::logic_error("CpuEngine::upload_dft: size mismatch");
    std::copy(host.begin(), host.end(), a.begin());
  }

  void sample(int row) override {
    if (row < 0 || row >= max_rows_) throw std::logic_error("CpuEngine::sample: row outside the sample buffer");
    float* out = rows_.data() + static_cast<std::size_t>(row) * samples_.size();
    for (std::size_t s = 0; s < samples_.size(); ++s) out[s] = base_[samples_[s].component][samples_[s].index];
  }

  void read_samples(int rows, std::span<float> host) override {
    const std::size_t n = static_cast<std::size_t>(rows) * samples_.size();
    if (host.size() != n || rows > max_rows_) throw std::logic_error("CpuEngine::read_samples: size mismatch");
    std::copy_n(rows_.data(), n, host.data());
  }

  EnergySums energy() override {
    const auto& n = domain_.n;
    const std::int64_t sy = layout_.pitch, sz = layout_.plane();
    const HCoeffs k = ch_;
    const MaterialIndex* mat = mat_base();
    double we = 0, wh = 0;
    const float* ex = base_[kEx];
    const float* ey = base_[kEy];
    const float* ez = base_[kEz];
    const float* hx = base_[kHx];
    const float* hy = base_[kHy];
    const float* hz = base_[kHz];
#pragma omp parallel for collapse(2) reduction(+ : we, wh) if (n[0] * n[1] * n[2] > kParallelCells)
    for (std::int64_t z = 0; z < n[2]; ++z) {
      for (std::int64_t y = 0; y < n[1]; ++y) {
        for (std::int64_t x = 0; x < n[0]; ++x) {
          const std::int64_t c = layout_.at(x, y, z);
          const double e2 = double(ex[c]) * ex[c] + double(ey[c]) * ey[c] + double(ez[c]) * ez[c];
          we += e2 * eps_r_[uniform_ ? 0 : mat[c]];
          const float nx = curl_step_h(hx[c], k.cy, ez[c + sy], ez[c], k.cz, ey[c + sz], ey[c]);
          const float ny = curl_step_h(hy[c], k.cz, ex[c + sz], ex[c], k.cx, ez[c + 1], ez[c]);
          const float nz = curl_step_h(hz[c], k.cx, ey[c + 1], ey[c], k.cy, ex[c + sy], ex[c]);
          wh += double(hx[c]) * nx + double(hy[c]) * ny + double(hz[c]) * nz;
        }
      }
    }
    return {we, wh};
  }

 private:
  struct SlabState {
    CpmlSlab slab;
    std::array<std::vector<float>, 4> psi;
  };

  void check_size(std::size_t n, const char* what) const {
    if (static_cast<std::int64_t>(n) != layout_.elements())
      throw std::logic_error(std::string("CpuEngine::") + what + ": host array size differs from the layout");
  }
  const MaterialIndex* mat_base() const { return mat_store_.data() + lead_; }

  // The tangential E on the plane 0 of `axis`, over `range`'s extent on the other axes.
  void zero_tangential_e_in(int axis, Box range) {
    range.lo[axis] = 0;
    range.hi[axis] = 1;
    for (int c : {(axis + 1) % 3, (axis + 2) % 3})
      for (std::int64_t z = range.lo[2]; z < range.hi[2]; ++z)
        for (std::int64_t y = range.lo[1]; y < range.hi[1]; ++y)
          for (std::int64_t x = range.lo[0]; x < range.hi[0]; ++x) base_[c][layout_.at(x, y, z)] = 0.0f;
  }

  // The ghost layers of the axes this rank wraps alone, over `range` (what the next update
  // reads): before H the high layer of E's tangential components, before E the low one of H's.
  void wrap_alone(bool e, const Box& range) {
    for (int a = 0; a < 3; ++a) {
      if (!domain_.wraps_alone(a)) continue;
      const std::int64_t ghost = e ? domain_.n[a] : -1, source = e ? 0 : domain_.n[a] - 1;
      for (int c : {(a + 1) % 3, (a + 2) % 3}) copy_layer(base_[c + (e ? 0 : 3)], layout_, a, ghost, source, range);
    }
  }

  // One slab's CPML corrections (yee.hpp): E reads H at -1 along the axis, H reads E at +1.
  void cpml(int s, bool electric) {
    SlabState& st = slabs_.at(s);
    if (st.slab.local.empty()) return;
    switch (st.slab.axis * 2 + (electric ? 1 : 0)) {
      case 0: return cpml_slab<0, false>(st);
      case 1: return cpml_slab<0, true>(st);
      case 2: return cpml_slab<1, false>(st);
      case 3: return cpml_slab<1, true>(st);
      case 4: return cpml_slab<2, false>(st);
      default: return cpml_slab<2, true>(st);
    }
  }

  template <int A, bool kElectric>
  void cpml_slab(SlabState& st) {
    constexpr int p = (A + 1) % 3, q = (A + 2) % 3;
    const Box& b = st.slab.local;
    const std::int64_t sa = A == 0 ? 1 : A == 1 ? layout_.pitch : layout_.plane();
    const std::int64_t ex0 = b.extent(0), ex1 = b.extent(1);
    const MaterialIndex* mat = mat_base();
    const Material* table = table_.data();
    const bool uniform = uniform_;
    const float ch_a = A == 0 ? ch_.cx : A == 1 ? ch_.cy : ch_.cz;
    const CpmlCoeffs* profile = st.slab.profile.data();
    // E: psi 0, 1 correct E_p, E_q from H_q, H_p; H: psi 2, 3 correct H_p, H_q from E_q, E_p.
    float* __restrict psi_a = st.psi[kElectric ? 0 : 2].data();
    float* __restrict psi_b = st.psi[kElectric ? 1 : 3].data();
    float* __restrict fp = base_[kElectric ? p : 3 + p];
    float* __restrict fq = base_[kElectric ? q : 3 + q];
    const float* __restrict gq = base_[kElectric ? 3 + q : q];
    const float* __restrict gp = base_[kElectric ? 3 + p : p];
#pragma omp parallel for collapse(2) if (b.cells() > kParallelCells)
    for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z) {
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y) {
        const std::int64_t row = layout_.at(0, y, z);
        const std::int64_t drow = ((z - b.lo[2]) * ex1 + (y - b.lo[1])) * ex0 - b.lo[0];
        const std::int64_t along_row = A == 1 ? y - b.lo[1] : A == 2 ? z - b.lo[2] : 0;
        for (std::int64_t x = b.lo[0]; x < b.hi[0]; ++x) {
          const std::int64_t c = row + x, d = drow + x;
          const CpmlCoeffs& pc = profile[A == 0 ? x - b.lo[0] : along_row];
          if constexpr (kElectric) {
            const Material m = table[uniform ? 0 : mat[c]];
            const float cb_a = A == 0 ? m.cbx : A == 1 ? m.cby : m.cbz;
            const float dq = gq[c] - gq[c - sa];
            psi_a[d] = cpml_psi(psi_a[d], pc.be, pc.ce, dq);
            fp[c] = cpml_correct(fp[c], -cb_a, pc.ke, dq, psi_a[d]);
            const float dp = gp[c] - gp[c - sa];
            psi_b[d] = cpml_psi(psi_b[d], pc.be, pc.ce, dp);
            fq[c] = cpml_correct(fq[c], cb_a, pc.ke, dp, psi_b[d]);
          } else {
            const float dq = gq[c + sa] - gq[c];
            psi_a[d] = cpml_psi(psi_a[d], pc.bh, pc.ch, dq);
            fp[c] = cpml_correct(fp[c], ch_a, pc.kh, dq, psi_a[d]);
            const float dp = gp[c + sa] - gp[c];
            psi_b[d] = cpml_psi(psi_b[d], pc.bh, pc.ch, dp);
            fq[c] = cpml_correct(fq[c], -ch_a, pc.kh, dp, psi_b[d]);
          }
        }
      }
    }
  }

  int deep_planes_ = 0;           // blocked_deep_planes: planes beyond each z ghost plane
  std::int64_t lead_ = kLeadPad;  // every array's base in its allocation
  int blocked_steps_ = 0;         // enable_blocked
  std::array<std::vector<float>, kComponents> store_;
  std::array<std::vector<float>, kComponents> spare_store_;  // the previous copy (enable_blocked)
  float* base_[kComponents]{};
  std::vector<MaterialIndex> mat_store_;
  std::vector<Material> table_;
  std::vector<float> eps_r_;
  bool uniform_ = true;
  std::vector<SlabState> slabs_;
  std::vector<NodeCoeffs> nodes_;  // set_overrides
  std::vector<float> node_e_;      // their E(n), kept by save_override_e
  DispersionView disp_;
  std::vector<DispersiveMaterial> disp_table_;
  std::array<std::vector<TfsfTerm>, 2> tfsf_;  // H, E
  std::array<std::array<std::vector<float>, 3>, 2 * kMaxPoles> pol_;  // J slots, then P slots
  struct Dft {
    DftRegion region;
    std::vector<double> acc;
  };
  std::vector<Dft> dft_;
  std::vector<Sample> samples_;
  std::vector<float> rows_;
  int max_rows_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const LocalDomain& domain, const HCoeffs& ch) {
  return std::make_unique<CpuEngine>(domain, ch);
}

std::unique_ptr<Engine> make_engine(Backend backend, const LocalDomain& domain, const HCoeffs& ch) {
  return backend == Backend::cuda ? make_cuda_engine(domain, ch) : make_cpu_engine(domain, ch);
}

#if !defined(TESSERA_HAVE_CUDA)
std::unique_ptr<Engine> make_cuda_engine(const LocalDomain&, const HCoeffs&) {
  throw InputError("the fdtd cuda backend is not available: this tessera was built without CUDA");
}
#endif

}  // namespace tessera::fdtd
