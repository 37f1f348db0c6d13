#include "solvers/fdtd/ghosts.hpp"

#include <array>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "comm/cart.hpp"
#include "comm/collectives.hpp"
#include "comm/halo.hpp"
#include "comm/transport.hpp"

namespace tessera::fdtd {
namespace {

// The two components tangential to faces normal to `axis`, of E (0) or H (3).
std::array<int, 2> tangential(int axis, int first) { return {first + (axis + 1) % 3, first + (axis + 2) % 3}; }

class HaloGhosts final : public Ghosts {
 public:
  HaloGhosts(const comm::CartDecomposition& decomp, comm::Transport& transport, const Layout& layout)
      : decomp_(decomp), transport_(transport) {
    comm::HaloLayout& hl = layout_;
    hl.n = decomp.local_size();
    hl.ghost = 1;
    hl.pitch = layout.pitch;
    hl.rows = layout.rows;
    hl.elem_size = sizeof(float);
    for (int a = 0; a < 3; ++a) {
      // Alone on a periodic axis: both neighbours are this rank, a copy on the device.
      self_[a] = decomp.periodic()[a] && decomp.dims()[a] == 1;
      for (int side = 0; side < 2; ++side) {
        comm::HaloOptions opt;
        opt.fill = {{{false, false}, {false, false}, {false, false}}};
        opt.fill[a][side] = true;  // E: high (side 1), H: low (side 0)
        auto& slot = side == 1 ? e_[a] : h_[a];
        slot = std::make_unique<comm::HaloExchange>(decomp, transport, hl, 2, opt);
        // A rank may only send on an axis (its ghost on this side lies beyond a wall) and
        // must still take part; only a ghost that arrives splits its update.
        late_[side][a] = decomp.neighbor(a, side) != MPI_PROC_NULL && !self_[a];
        sends_[side][a] = decomp.neighbor(a, 1 - side) != MPI_PROC_NULL && !self_[a];
      }
      // The fused sweep wraps a periodic axis that one rank spans itself; it exchanges only
      // along axes cut into several ranks (the same on every rank: the set-up is collective).
      fused_exchanges_ = fused_exchanges_ || decomp.dims()[a] > 1;
    }
    z_cut_only_ = decomp.dims()[0] == 1 && decomp.dims()[1] == 1 && decomp.dims()[2] > 1;
  }

  void begin(HalfStep which, Engine& engine) override {
    if (which == HalfStep::fused) {
      begin_fused(engine);
      return;
    }
    const bool e = which == HalfStep::e_for_h;
    auto& exchanges = e ? e_ : h_;
    // Self-wraps first, in order on the compute stream: the update that follows reads them.
    for (int a = 0; a < 3; ++a)
      if (self_[a]) exchanges[a]->exchange(fields(engine, a, e), engine.compute_stream());
    const int side = side_of(which);
    bool any_remote = false;
    for (int a = 0; a < 3; ++a) any_remote = any_remote || remote(side, a);
    if (!any_remote) return;
    engine.halo_after_compute();
    for (int a = 0; a < 3; ++a)
      if (remote(side, a)) exchanges[a]->begin(fields(engine, a, e), engine.halo_stream());
  }

  void finish(HalfStep which, Engine& engine) override {
    if (which == HalfStep::fused) {
      finish_fused(engine);
      return;
    }
    auto& exchanges = which == HalfStep::e_for_h ? e_ : h_;
    for (int a = 0; a < 3; ++a)
      if (remote(side_of(which), a)) exchanges[a]->finish(engine.compute_stream());
  }

  std::array<bool, 3> filled_late(HalfStep which) const override {
    if (which == HalfStep::fused) {  // along every axis cut into ranks, both sides
      const auto& d = decomp_.dims();
      return {d[0] > 1, d[1] > 1, d[2] > 1};
    }
    return late_[side_of(which)];
  }

  bool on_every_rank(bool mine) override {
    return comm::allreduce(decomp_.context(), mine ? 1 : 0, comm::Op::min) == 1;
  }

  void max_over_ranks(std::span<double> values) override {
    if (!values.empty()) comm::allreduce_inplace(decomp_.context(), values, comm::Op::max);
  }

  // z planes are contiguous in every array (x and y are not cut where the blocked sweep runs):
  // each message is `steps` whole planes where they lie, no packing.
  void exchange_pass(Engine& engine, int steps, bool materials) override {
    if (!materials) {
      begin_pass(engine, steps);
      finish_pass(engine);
      return;
    }
    if (decomp_.dims()[2] == 1) return;  // z uncut: a periodic z that one rank spans wraps in the pass
    check_pass_planes(engine, steps);
    const PlaneArray indices{engine.material_base(), sizeof(MaterialIndex), steps, steps};
    start_planes({&indices, 1}, engine.compute_stream())->finish();
  }

  void begin_pass(Engine& engine, int steps) override {
    if (decomp_.dims()[2] == 1) return;
    check_pass_planes(engine, steps);
    std::vector<PlaneArray> arrays;
    for (int c = 0; c < kComponents; ++c) arrays.push_back({engine.base(c), sizeof(float), steps, steps});
    pass_planes_ = start_planes(arrays, engine.compute_stream());
  }

  void finish_pass(Engine&) override {
    if (pass_planes_) std::exchange(pass_planes_, nullptr)->finish();
  }

 private:
  // Before the fused sweep, on the halo stream, along the axes cut into ranks: E (all three
  // components, both sides, edges too) in corners mode, since the recomputed H of a low ghost
  // cell reads E at +1 along the other axes, which may lie in another ghost layer; then the
  // tangential H of the low layers, as for the E update (not both at once: their messages
  // share tags).
  void begin_fused(Engine& engine) {
    if (!fused_exchanges_) return;
    if (z_cut_only_) {
      // The same cells as below, as whole planes in one group: E's three components both ways,
      // H's tangential ones up into the low ghost layer (x and y are not cut: no edges).
      std::vector<PlaneArray> arrays;
      for (int c = 0; c < 3; ++c) arrays.push_back({engine.base(c), sizeof(float), 1, 1});
      for (int c = 3; c < 5; ++c) arrays.push_back({engine.base(c), sizeof(float), 1, 0});
      fused_planes_ = start_planes(arrays, engine.halo_stream());
      return;
    }
    if (!fused_e_) {  // collective: every rank steps the same sweep (Stepper::choose_sweep)
      comm::HaloOptions opt;
      opt.corners = true;
      for (int a = 0; a < 3; ++a) opt.fill[a] = {!self_[a], !self_[a]};
      fused_e_ = std::make_unique<comm::HaloExchange>(decomp_, transport_, layout_, 3, opt);
    }
    const std::array<void*, 3> e{engine.base(0), engine.base(1), engine.base(2)};
    fused_e_->begin(e, engine.halo_stream());
  }

  void finish_fused(Engine& engine) {
    if (!fused_exchanges_) return;
    if (z_cut_only_) {
      std::exchange(fused_planes_, nullptr)->finish();
      engine.compute_after_halo();
      return;
    }
    fused_e_->finish(engine.halo_stream());
    const auto h_moves = [&](int a) { return remote(0, a); };
    for (int a = 0; a < 3; ++a)
      if (h_moves(a)) h_[a]->begin(fields(engine, a, false), engine.halo_stream());
    for (int a = 0; a < 3; ++a)
      if (h_moves(a)) h_[a]->finish(engine.halo_stream());
    engine.compute_after_halo();
  }

  // Whole z planes between z neighbours (arrays are x-fastest, so a z plane, ghost rims
  // included, is contiguous): of each array the `up` planes below its high face go to the high
  // neighbour's low ghost planes, the `down` planes above its low face to the low neighbour's
  // high ones. Planes k = -1 - d (d deep planes) .. nz + d of an array start at base + (k + 1) planes.
  struct PlaneArray {
    void* base;
    std::size_t elem;
    int up, down;
  };
  std::unique_ptr<comm::Exchange> start_planes(std::span<const PlaneArray> arrays, stream_t stream) {
    const std::int64_t plane = layout_.row_pitch() * layout_.plane_rows(), nz = layout_.n[2];
    const int low = decomp_.neighbor(2, 0), high = decomp_.neighbor(2, 1);
    // Tags: one per array and direction (0: travelling towards -z), apart from HaloExchange's.
    const auto tag = [](std::size_t array, int direction) { return kPassTag + 2 * int(array) + direction; };
    std::vector<comm::Message> sends, recvs;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
      const PlaneArray& a = arrays[i];
      const auto at = [&](std::int64_t k) { return static_cast<char*>(a.base) + (k + 1) * plane * a.elem; };
      const auto bytes = [&](int planes) { return static_cast<std::size_t>(planes * plane) * a.elem; };
      if (low != MPI_PROC_NULL) {  // planes [0, down) go down; the low neighbour's top `up` come up
        if (a.down > 0) sends.push_back({at(0), bytes(a.down), low, tag(i, 0)});
        if (a.up > 0) recvs.push_back({at(-a.up), bytes(a.up), low, tag(i, 1)});
      }
      if (high != MPI_PROC_NULL) {
        if (a.up > 0) sends.push_back({at(nz - a.up), bytes(a.up), high, tag(i, 1)});
        if (a.down > 0) recvs.push_back({at(nz), bytes(a.down), high, tag(i, 0)});
      }
    }
    return transport_.start(sends, recvs, stream);
  }

  static void check_pass_planes(const Engine& engine, int steps) {
    if (steps < 1 || steps > engine.deep_planes() + 1)
      throw std::logic_error("exchange_pass: " + std::to_string(steps) + " planes, the engine holds " +
                             std::to_string(engine.deep_planes() + 1) + " beyond each z face");
  }

  // E ghosts are read on the high side (H reads E at +1), H ghosts on the low side.
  static int side_of(HalfStep which) { return which == HalfStep::e_for_h ? 1 : 0; }
  bool remote(int side, int a) const { return late_[side][a] || sends_[side][a]; }
  static std::array<void*, 2> fields(Engine& engine, int axis, bool e) {
    const auto comps = tangential(axis, e ? 0 : 3);
    return {engine.base(comps[0]), engine.base(comps[1])};
  }

  static constexpr int kPassTag = 20000;
  const comm::CartDecomposition& decomp_;
  comm::Transport& transport_;
  comm::HaloLayout layout_;
  std::array<std::unique_ptr<comm::HaloExchange>, 3> e_, h_;
  std::unique_ptr<comm::HaloExchange> fused_e_;  // made on the first fused step
  std::unique_ptr<comm::Exchange> fused_planes_;  // in flight between begin and finish (z cut only)
  std::unique_ptr<comm::Exchange> pass_planes_;   // in flight between begin_pass and finish_pass
  bool fused_exchanges_ = false;
  bool z_cut_only_ = false;  // the fused sweep's ghosts as whole z planes
  std::array<bool, 3> self_{};
  std::array<std::array<bool, 3>, 2> late_{};   // [side][axis]: another rank fills this ghost
  std::array<std::array<bool, 3>, 2> sends_{};  // [side][axis]: this rank fills another's
};

// Copies the periodic wrap of a single rank: the ghost layer gets the interior layer at the
// other end of the axis (what a self-exchange of HaloExchange delivers).
class LocalGhosts final : public Ghosts {
 public:
  explicit LocalGhosts(const LocalDomain& d) : domain_(d), layout_(make_layout(d.n)) {}

  void finish(HalfStep, Engine&) override {}
  std::array<bool, 3> filled_late(HalfStep) const override { return {false, false, false}; }
  bool on_every_rank(bool mine) override { return mine; }
  void max_over_ranks(std::span<double>) override {}
  void exchange_pass(Engine&, int, bool) override {}  // one rank: no z neighbour
  void begin_pass(Engine&, int) override {}
  void finish_pass(Engine&) override {}

  void begin(HalfStep which, Engine& engine) override {
    if (which == HalfStep::fused) {
      for (const auto& sides : domain_.neighbour)
        if (sides[0] || sides[1])
          throw std::logic_error("LocalGhosts: no periodic wrap for the fused sweep (use make_halo_ghosts)");
      return;
    }
    const auto& n = domain_.n;
    const bool e = which == HalfStep::e_for_h;
    const int side = e ? 1 : 0;
    for (int a = 0; a < 3; ++a) {
      if (!domain_.neighbour[a][side]) continue;
      if (engine.backend() != Backend::cpu)
        throw std::logic_error("LocalGhosts wraps periodic axes in host memory only (a cpu engine)");
      const std::int64_t ghost = e ? n[a] : -1, source = e ? 0 : n[a] - 1;
      for (int comp : tangential(a, e ? 0 : 3))
        copy_layer(static_cast<float*>(engine.base(comp)), layout_, a, ghost, source, domain_.local());
    }
  }

 private:
  LocalDomain domain_;
  Layout layout_;
};

}  // namespace

std::unique_ptr<Ghosts> make_halo_ghosts(const comm::CartDecomposition& decomp, comm::Transport& transport,
                                         const Layout& layout) {
  return std::make_unique<HaloGhosts>(decomp, transport, layout);
}

std::unique_ptr<Ghosts> make_local_ghosts(const LocalDomain& domain) { return std::make_unique<LocalGhosts>(domain); }

LocalDomain local_domain(const comm::CartDecomposition& decomp) {
  LocalDomain d;
  d.global = decomp.global();
  d.offset = decomp.local_offset();
  d.n = decomp.local_size();
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) d.neighbour[a][s] = decomp.neighbor(a, s) != MPI_PROC_NULL;
  return d;
}

LocalDomain whole_domain(const Index3& cells, std::array<bool, 3> periodic) {
  LocalDomain d;
  d.global = cells;
  d.offset = {0, 0, 0};
  d.n = cells;
  for (int a = 0; a < 3; ++a) d.neighbour[a] = {periodic[a], periodic[a]};
  return d;
}

}  // namespace tessera::fdtd
