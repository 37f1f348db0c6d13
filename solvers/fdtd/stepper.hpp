#pragma once
// Stepper: one rank's leapfrog, E(n) H(n-1/2) -> E(n+1) H(n+1/2), split (below) or fused
// (choose_sweep: one exchange of the ghosts, then H and E in one pass, CPML included):
//   1. E ghosts (tangential, high side) begin; H update of the cells that need no ghost;
//      finish; H update of the boundary shell; CPML H corrections.
//   2. H ghosts (tangential, low side) begin; E update of the interior; finish; the shell;
//      CPML E corrections; plane-wave current sheets and point sources at t = (n + 1/2) dt
//      (soft) or (n + 1) dt (hard); PEC walls.
//   3. Probes are sampled every probe_every steps; the running DFTs accumulate (spectra.hpp).
// Every cell gets the same float operations in the same order on every rank, so the result is
// independent of the decomposition, bit for bit.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "solvers/fdtd/backend.hpp"
#include "solvers/fdtd/ghosts.hpp"
#include "solvers/fdtd/params.hpp"
#include "solvers/fdtd/smoothing.hpp"
#include "solvers/fdtd/spectra.hpp"
#include "solvers/fdtd/tfsf.hpp"

namespace tessera::fdtd {

// A box split for overlap: `interior` needs no ghost value; `shell` (disjoint) the rest.
struct SplitBoxes {
  Box interior;
  std::vector<Box> shell;
};
// Cells of the box [0, n) that read a ghost on side `side` of an axis where `filled` says the
// exchange writes it go to the shell.
SplitBoxes split_for_overlap(const Index3& n, const std::array<bool, 3>& filled, int side);
// Disjoint boxes covering the union of `boxes` (each cell once).
std::vector<Box> disjoint_cover(const std::vector<Box>& boxes);
// The local cells whose E update reads an H that a CPML slab corrects (the slabs and one
// layer beyond each on the high sides), as disjoint boxes: what the fused sweep redoes.
std::vector<Box> cpml_redo_boxes(const std::vector<CpmlSlab>& slabs, const LocalDomain& domain);
// The share of the grid's cells that lie in a CPML slab (each cell once; the same on every rank).
double cpml_cell_share(const std::vector<CpmlSlab>& slabs, const LocalDomain& domain);

class Stepper {
 public:
  Stepper(const Model& model, const LocalDomain& domain, std::unique_ptr<Engine> engine, std::unique_ptr<Ghosts> ghosts);

  void step();
  std::int64_t steps() const { return step_; }
  double time() const { return double(step_) * model_.dt; }
  void set_step(std::int64_t s) {
    flush();
    step_ = s;
  }

  // Total electromagnetic energy (J) summed over this rank's cells (exchanges E ghosts).
  struct Energy {
    double electric = 0, magnetic = 0;
  };
  Energy local_energy();

  // Probe samples taken since the last drain: rows x sample_columns().size(), and their steps.
  std::int64_t pending_rows() const { return static_cast<std::int64_t>(sample_steps_.size()); }
  std::vector<float> drain_samples(std::vector<std::int64_t>& steps);
  // Global column (in the order of model.probes and their nodes) of each local sample.
  const std::vector<int>& sample_columns() const { return sample_columns_; }
  int total_columns() const { return total_columns_; }
  // Samples the probes now (at step()) into the buffer; step() does it every probe_every steps.
  void sample_now();

  // The engine, its fields at steps() (a blocked sweep's held-back steps run first).
  Engine& engine() {
    flush();
    return *engine_;
  }
  const Model& model() const { return model_; }
  const LocalDomain& domain() const { return domain_; }
  const std::vector<CpmlSlab>& slabs() const { return slabs_; }
  // Local cells of the J / P arrays (dispersion.hpp); empty without dispersive materials here.
  const Box& dispersion_box() const { return dispersion_box_; }
  // This rank's part of the global dispersive bounds (what its checkpoint part covers: the
  // arrays' box, or zeros where a uniform rank holds no dispersive cell and so no arrays).
  const Box& dispersion_io_box() const { return dispersion_io_box_; }
  // Whether step() runs the fused sweep (fdtd.sweep), and why or why not, for the run log.
  bool fused() const { return fused_; }
  const std::string& sweep_reason() const { return sweep_reason_; }
  // The blocked sweep (stepper_blocked.cpp): the most steps of one pass over memory, 0 when
  // off. steps() counts the steps it holds back until a pass is full or the fields are looked
  // at (engine(), probes, energy); flush() runs them.
  int block_steps() const { return block_steps_; }
  std::int64_t blocked_passes() const { return blocked_passes_; }  // passes of two or more steps run
  void flush();
  Spectra& spectra() { return *spectra_; }
  // The E nodes this rank redoes with their own coefficients (smoothing.hpp), array order.
  const std::vector<NodeOverride>& node_overrides() const { return overrides_; }
  // The material index the constructor painted (Layout-shaped), handed over once: painting a
  // mesh or a voxel map again would cost the geometry's set-up time again.
  std::vector<MaterialIndex> release_material_index() { return std::move(material_index_); }
  // The TFSF box's 1D incident grid, or null.
  Tfsf* tfsf() { return tfsf_.get(); }

  // Rows the engine buffers before they are copied to the host.
  static constexpr int kSampleRows = 1024;

 private:
  std::vector<Kick> kicks_at(std::int64_t n) const;  // the kicks after step n (soft zeros left out)
  float sheet_value(const PlaneWaveSpec& w, std::int64_t n) const;  // K after step n
  void spill_samples();

  Model model_;
  LocalDomain domain_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Ghosts> ghosts_;
  std::vector<CpmlSlab> slabs_;
  Box dispersion_box_, dispersion_io_box_;
  SplitBoxes h_split_, e_split_;
  std::vector<int> pec_axes_;  // axes whose low wall this rank holds (non-periodic)
  bool fused_ = false;
  // The fused sweep's z-stretches away from the faces run while the ghosts of a z-only cut
  // travel (SweepPart::inner), the two end stretches after them.
  bool fused_overlaps_z_ = false;
  // The blocked sweep across ranks: each pass's inner z stretches run while the neighbours'
  // planes travel (Ghosts::begin_pass), the two end stretches after them.
  bool blocked_overlaps_z_ = false;
  std::string sweep_reason_;
  bool cpml_in_sweep_ = false;  // the fused sweep applies the CPML itself (Engine::fuse_cpml)
  std::vector<Box> cpml_redo_;  // else the cells its repair redoes (cpml_redo_boxes)
  std::vector<NodeOverride> overrides_;
  bool overrides_read_ghost_h_ = false;  // a node on a face next to a neighbour (fused sweep: no)
  void set_node_overrides(std::span<const MaterialIndex> index);
  void choose_sweep();
  void choose_cpml_path();
  void repair_cpml();  // after a fused sweep: the CPML corrections, bitwise the split step's
  void finish_step();  // sources, PEC walls, probes after the bulk update
  int block_steps_ = 0;  // the blocked sweep: passes of up to this many steps, 0 when off
  int deferred_ = 0;     // steps counted in step_ whose bulk update has not run yet
  std::int64_t blocked_passes_ = 0;
  void choose_blocked();
  void split_bulk();  // step()'s split H and E updates (ghosts, shells, CPML, TFSF), no finish_step
  void fused_bulk();  // step()'s fused sweep and its ghosts (no CPML repair, overrides or finish_step)
  // Whether this run may take the blocked sweep with z neighbours (the same on every rank).
  bool blocked_across_ranks() const;
  bool acts_after(std::int64_t n) const;  // a source, probe or monitor acts after step n
  bool defer_step();                      // step() under the blocked sweep; false: a plain step
  void run_pass(int steps);               // `steps` held-back steps, PEC walls included

  struct LocalSource {
    Kick kick;
    double scale = 0;  // value = scale * waveform(t)
    const SourceSpec* spec = nullptr;
  };
  std::vector<LocalSource> sources_;
  std::vector<MaterialIndex> material_index_;  // until release_material_index
  std::vector<double> source_scale_;  // |scale| of every source of the model, the same on every rank
  // [[fdtd.plane_wave]] sheets whose layer this rank holds: local layer, and the spec.
  std::vector<std::pair<std::int64_t, const PlaneWaveSpec*>> sheets_;
  std::unique_ptr<Spectra> spectra_;
  std::unique_ptr<Tfsf> tfsf_;
  std::vector<int> sample_columns_;
  int total_columns_ = 0;
  std::vector<std::int64_t> sample_steps_;
  int engine_rows_ = 0;             // rows waiting in the engine's buffer
  std::vector<float> host_samples_;  // rows already copied out
  std::int64_t step_ = 0;
};

// A Stepper on a cpu engine for the whole grid on one rank, without MPI (periodic axes wrap
// locally): the serial reference of the tests.
std::unique_ptr<Stepper> make_serial_stepper(const Model& model);

}  // namespace tessera::fdtd
