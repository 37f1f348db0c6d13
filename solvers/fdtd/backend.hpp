#pragma once
// Engine: one rank's field storage and the kernels that update it, behind one interface with a
// cpu (OpenMP) and a cuda implementation. The Stepper decides what runs when; an Engine only
// knows how. All boxes are in local cells (0 <= i < n), never ghosts.
//
// Arrays: the six components and the material index share one Layout (grid.hpp); psi arrays
// of the CPML slabs are dense over each slab's local box. Ghost cells start at zero; only the
// halo exchange writes them.
//
// Streams (cuda): kernels run in order on the compute stream; the halo exchange packs on the
// halo stream, which halo_after_compute() orders after the work queued so far.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/stream.hpp"
#include "solvers/fdtd/cpml.hpp"
#include "solvers/fdtd/dispersion.hpp"
#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/materials.hpp"
#include "solvers/fdtd/yee.hpp"

namespace tessera::fdtd {

// A source acting on one node: soft adds `value`, hard sets it.
struct Kick {
  std::int64_t index = 0;  // Layout index
  int component = 0;       // 0..2 (E)
  int hard = 0;
  float value = 0;
};

// A TFSF correction of one node (tfsf.hpp): f <- f + w0 inc[u0], then + w1 inc[u1] where u1 >= 0
// (inc: the 1D incident E for H nodes, H for E nodes). One term per node.
struct TfsfTerm {
  std::int64_t index = 0;  // Layout index
  int component = 0;       // 0..5
  int u0 = -1;
  float w0 = 0;
  int u1 = -1;
  float w1 = 0;
};

// A probed node.
struct Sample {
  std::int64_t index = 0;
  int component = 0;  // 0..5
};

// Sums for the energy: electric  sum eps_r |E|^2,  magnetic  sum H(n-1/2) . H(n+1/2) with
// H(n+1/2) from the bulk update (CPML corrections and sources left out).
struct EnergySums {
  double electric = 0, magnetic = 0;
};

// A running DFT of one component over a box of its nodes (local cells; along an axis whose low
// ghost layer the exchange fills with current values, the box may start at -1: a flux plane's
// H below it). Accumulators are float64, frequency-major so that the cells of one frequency
// are contiguous: element (f * 2 + part) * box.cells() + cell, part 0 real, 1 imaginary,
// cell x fastest over the box.
struct DftRegion {
  int component = 0;  // 0..5
  Box box;
  int nfreq = 0;
  std::int64_t elements() const { return 2 * std::int64_t(nfreq) * box.cells(); }
};

// The cuda engine batches a region's samples (float32) before adding them to its accumulators
// (cuda/spectra.cu): up to kDftBatch steps in a buffer kept within kDftSampleBytes (a large
// volume batches fewer steps, down to one). The memory estimate counts the buffer too.
inline constexpr int kDftBatch = 32;
inline constexpr std::int64_t kDftSampleBytes = std::int64_t(1) << 28;
constexpr int dft_batch_steps(std::int64_t cells) {
  return static_cast<int>(std::clamp<std::int64_t>(kDftSampleBytes / (4 * cells), 1, kDftBatch));
}

// The blocked sweep's scope, shared by the engines: at most kMaxBlockedSteps steps per pass;
// the planes an engine's arrays hold beyond each z ghost plane where the rank has a z neighbour
// (a pass of k steps reads k of the neighbour's planes: the ghost plane and these); and why a
// pass of `steps` steps cannot run on `domain` (empty: it can) with CPML slabs (`cpml`) or a
// TFSF box or dispersive materials (`acts_within_step`), given the engine's `deep_planes`.
inline constexpr int kMaxBlockedSteps = 4;
inline int blocked_deep_planes(const LocalDomain& d) {
  return d.remote(2, 0) || d.remote(2, 1) ? kMaxBlockedSteps - 1 : 0;
}
std::string blocked_refusal(const LocalDomain& domain, int steps, int deep_planes, bool cpml, bool acts_within_step);

// The fused or blocked sweep whole, or in two parts around a z exchange (Engine::update_fused,
// Engine::update_blocked).
enum class SweepPart { all, inner, outer };

// The blocked sweep's tiles of (x, y) columns: 32 x tile_y (16 or 32) and the z stretches of a
// pass; 0 leaves it to the engine (TESSERA_FDTD_BLOCKED_TILE, else 32 x 32 and about four waves
// of blocks). Benchmarks sweep it (bench fdtd's "tile 32x16" rows).
struct BlockedTiling {
  int tile_y = 0, stretches = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual Backend backend() const = 0;
  const LocalDomain& domain() const { return domain_; }
  const Layout& layout() const { return layout_; }

  // ---- set-up ----
  // The material index (Layout-shaped, elements() values) and the table. `uniform`: every cell
  // of this rank has material 0 of the table, so kernels may skip the index.
  virtual void set_materials(std::span<const MaterialIndex> index, const MaterialTable& table, bool uniform) = 0;
  virtual void set_cpml(const std::vector<CpmlSlab>& slabs) = 0;
  virtual void set_samples(std::span<const Sample> samples, int max_rows) = 0;

  // ---- host access (synchronous) ----
  // A component's whole array (Layout elements, ghosts included).
  virtual void download(int component, std::span<float> host) = 0;
  virtual void upload(int component, std::span<const float> host) = 0;
  // psi arrays of slab s: 0, 1 for E_p, E_q; 2, 3 for H_p, H_q (cpml.hpp), dense over slab.local.
  virtual void download_psi(int slab, int which, std::span<float> host) = 0;
  virtual void upload_psi(int slab, int which, std::span<const float> host) = 0;
  // Interior cells of every component <- random_field_value(seed, ...) at their global cell.
  virtual void fill_random(std::uint64_t seed) = 0;
  // Base pointers in the engine's memory, for the halo exchange.
  virtual void* base(int component) = 0;

  // ---- kernels (queued in order) ----
  virtual void update_h(const Box& box) = 0;
  virtual void update_e(const Box& box) = 0;
  virtual void cpml_h(int slab) = 0;
  virtual void cpml_e(int slab) = 0;
  // E components tangential to the plane i_axis = 0 set to 0 (a PEC wall there).
  virtual void zero_tangential_e(int axis) = 0;
  virtual void apply_kicks(std::span<const Kick> kicks) = 0;
  // Probe values into row `row` of the sample buffer; read_samples copies rows [0, rows).
  virtual void sample(int row) = 0;
  virtual void read_samples(int rows, std::span<float> host) = 0;
  // Needs the E ghosts that the H update reads.
  virtual EnergySums energy() = 0;
  // A uniform current sheet: E_component -= (cb / d_axis)(material of the node) * k on every node
  // of the local layer `layer` along `axis` (k = K(t), a surface current density in A/m).
  virtual void add_sheet(int component, int axis, std::int64_t layer, float k) = 0;

  // ---- nodes with their own E coefficients (smoothing.hpp) ----
  // The nodes (own cells, each (index, component) once) whose E the step redoes after the bulk
  // E update. save_override_e keeps their E(n) (call it before the E update);
  // apply_override_e sets their E(n+1) from it and the new H (after the E update, before any
  // correction that acts on E: CPML, TFSF, sources). Nothing to do without nodes.
  virtual void set_overrides(std::span<const NodeCoeffs> nodes) = 0;
  virtual void save_override_e() = 0;
  virtual void apply_override_e() = 0;

  // ---- the TFSF box (tfsf.hpp) ----
  // The H and E node corrections (each node at most once per list).
  virtual void set_tfsf(std::span<const TfsfTerm> h_terms, std::span<const TfsfTerm> e_terms) = 0;
  // Applies the H (electric false; inc = the 1D E) or E (true; inc = the 1D H) corrections.
  virtual void apply_tfsf(bool electric, std::span<const float> inc) = 0;

  // ---- dispersive materials (dispersion.hpp) ----
  // Allocates zeroed J (and P, in the slots setup.lorentz marks) arrays over setup.box; from
  // then on update_e advances them in the cells whose material has poles. After set_materials
  // (the table is indexed like the material table, or has one entry for a uniform rank).
  virtual void set_dispersion(const DispersionSetup& setup) = 0;
  // J (which 0, A/m^2) or P (which 1, C/m^2) of pole slot `slot`, E component `comp`, dense over
  // setup.box (x fastest).
  virtual void download_polarisation(int slot, int which, int comp, std::span<float> host) = 0;
  virtual void upload_polarisation(int slot, int which, int comp, std::span<const float> host) = 0;

  // ---- running DFTs (solvers/fdtd/spectra.hpp) ----
  // Allocates zeroed accumulators; returns the region's id (0, 1, ... in call order).
  virtual int add_dft(const DftRegion& region) = 0;
  // acc[f] += double(field) * (re[f] + i im[f]) for every node of region `id` (re, im: nfreq
  // values; each cell's sum depends on its own values only, so any decomposition gives the
  // same bits).
  virtual void accumulate_dft(int id, std::span<const double> re, std::span<const double> im) = 0;
  virtual void download_dft(int id, std::span<double> host) = 0;
  virtual void upload_dft(int id, std::span<const double> host) = 0;

  // ---- the fused sweep (optional) ----
  // update_fused: H and then E over the whole local box in one pass, bitwise what update_h
  // and update_e over it give, reading the current copy of the fields and writing a second
  // one, which becomes current (base() changes); the copy it read stays intact until the next
  // sweep ("previous" below). On a side with a neighbour (domain().neighbour) it recomputes
  // the new H of the low ghost layer from the ghosts that HalfStep::fused fills; at a wall the
  // ghost is read as it is. Nothing may act between the H and the E update: no TFSF box, no
  // dispersive materials, and CPML only through the two repairs below.
  // enable_fused allocates the second copy; false, with `why`, where the engine cannot.
  // SweepPart::inner then SweepPart::outer is the same sweep in two launches: inner, the z
  // stretches that read no z ghost plane (queued while the ghosts of a z-only cut travel),
  // outer, the first and last stretch, after them; outer makes the written copy current.
  virtual bool enable_fused(std::string& why) {
    why = "this engine has no fused sweep";
    return false;
  }
  virtual void update_fused(SweepPart part = SweepPart::all) {
    (void)part;
    throw std::logic_error("update_fused without enable_fused");
  }
  // fuse_cpml: from now on update_fused applies the CPML slabs' corrections itself (psi
  // included), bitwise cpml_h and cpml_e after the split kernels; valid only where no low
  // ghost cell that the sweep recomputes lies in a slab (its psi is another rank's). False
  // where the engine cannot; then the repair below is the way.
  virtual bool fuse_cpml() { return false; }
  // CPML after a fused sweep. fused_cpml_h(slab): cpml_h's correction of the new H, with
  // E(n) read from the previous copy. fused_restore_e(box): E(n) back into `box` from the
  // previous copy, so that update_e and cpml_e can redo the cells whose E read uncorrected H.
  virtual void fused_cpml_h(int) { throw std::logic_error("fused_cpml_h without enable_fused"); }
  virtual void fused_restore_e(const Box&) { throw std::logic_error("fused_restore_e without enable_fused"); }

  // ---- the blocked sweep (optional; docs/fdtd.md) ----
  // update_blocked(steps): `steps` (2 <= steps <= the enabled most) whole steps in one pass
  // over memory, each H and E over the whole local box and then zero_tangential_e(a) for
  // every axis a whose low side has no neighbour; bitwise what those calls give, step by
  // step. Like update_fused it reads the current copy and writes the other, which becomes
  // current (the cpu engine's pass is a reference, not a faster update: those steps one after
  // the other, over boxes that shrink towards the neighbours, on a copy of the fields).
  // Neighbours only along z (a periodic x or y axis this rank spans alone wraps), no TFSF or
  // dispersive materials, and nothing may act between the steps of one pass. CPML slabs (one
  // rank only: no z neighbour) get their corrections within each step of the pass, psi
  // included, bitwise cpml_h and cpml_e after the split step's updates.
  // Before a pass, the `steps` planes beyond each z face with a neighbour must hold its fields
  // (Ghosts::exchange_pass), and, once, its material indices: the pass computes them again.
  // SweepPart::inner then SweepPart::outer is the same pass in two launches, as for
  // update_fused: inner reads no plane beyond a z face (queued while they travel:
  // Ghosts::begin_pass), outer makes the written copy current (the cpu engine's reference
  // pass does it all in outer).
  // enable_blocked allocates the second copy and takes passes of up to `steps` in `tiling`;
  // false, with `why`, where the engine cannot. Again: the tiling changes, the fields stay.
  virtual bool enable_blocked(int /*steps*/, std::string& why, BlockedTiling /*tiling*/ = {}) {
    why = "this engine has no blocked sweep";
    return false;
  }
  virtual void update_blocked(int /*steps*/, SweepPart /*part*/ = SweepPart::all) {
    throw std::logic_error("update_blocked without enable_blocked");
  }
  // After enable_fused or enable_blocked: swap_copies makes the previous copy current and the
  // current one previous.
  virtual void swap_copies() { throw std::logic_error("swap_copies without a second copy"); }
  // Planes beyond the ghost plane on each z side that the arrays of base() and material_base()
  // extend to (plane k of an array starts at base + layout().at(-1, -1, k) for -1 - deep_planes()
  // <= k <= n + deep_planes()); 0 where the engine has no blocked sweep or no z neighbour.
  virtual int deep_planes() const { return 0; }
  // The material index array (Layout-shaped, MaterialIndex values) on the engine's memory.
  virtual void* material_base() { return nullptr; }

  // ---- ordering ----
  virtual stream_t compute_stream() const { return nullptr; }
  virtual stream_t halo_stream() const { return nullptr; }
  virtual void halo_after_compute() {}
  virtual void compute_after_halo() {}  // compute work queued next waits for the halo stream
  virtual void synchronize() {}

 protected:
  Engine(const LocalDomain& domain, const HCoeffs& ch) : domain_(domain), layout_(make_layout(domain.n)), ch_(ch) {}
  LocalDomain domain_;
  Layout layout_;
  HCoeffs ch_;
};

std::unique_ptr<Engine> make_cpu_engine(const LocalDomain& domain, const HCoeffs& ch);
// Throws InputError in a build without CUDA.
std::unique_ptr<Engine> make_cuda_engine(const LocalDomain& domain, const HCoeffs& ch);
std::unique_ptr<Engine> make_engine(Backend backend, const LocalDomain& domain, const HCoeffs& ch);

}  // namespace tessera::fdtd
