#include "solvers/fdtd/stepper.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/env.hpp"
#include "core/error.hpp"
#include "core/profile.hpp"
#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {

namespace {

// The cells of `a` outside `b`, as up to six disjoint boxes.
std::vector<Box> subtract(Box a, const Box& b) {
  std::vector<Box> out;
  if (intersect(a, b).empty()) {
    if (!a.empty()) out.push_back(a);
    return out;
  }
  for (int d = 0; d < 3; ++d) {
    // Peel off the parts of a below and above b along d; what is left lies within b on d.
    if (a.lo[d] < b.lo[d]) {
      Box below = a;
      below.hi[d] = b.lo[d];
      out.push_back(below);
      a.lo[d] = b.lo[d];
    }
    if (a.hi[d] > b.hi[d]) {
      Box above = a;
      above.lo[d] = b.hi[d];
      out.push_back(above);
      a.hi[d] = b.hi[d];
    }
  }
  return out;
}

}  // namespace

std::vector<Box> disjoint_cover(const std::vector<Box>& boxes) {
  std::vector<Box> cover;
  for (const Box& b : boxes) {
    std::vector<Box> parts{b};
    for (const Box& taken : cover) {
      std::vector<Box> rest;
      for (const Box& p : parts)
        for (const Box& r : subtract(p, taken)) rest.push_back(r);
      parts = std::move(rest);
    }
    for (const Box& p : parts)
      if (!p.empty()) cover.push_back(p);
  }
  return cover;
}

std::vector<Box> cpml_redo_boxes(const std::vector<CpmlSlab>& slabs, const LocalDomain& domain) {
  std::vector<Box> reach;
  const Box global{{0, 0, 0}, domain.global};
  for (const CpmlSlab& s : slabs) {
    // E at a cell reads H there and at -1 along each axis: the slab and one more layer on
    // its high sides (beyond a slab's outer face that layer is outside the grid).
    Box b = s.global;
    for (int a = 0; a < 3; ++a) ++b.hi[a];
    const Box mine = intersect(intersect(b, global), domain.global_box());
    if (!mine.empty()) reach.push_back(shifted(mine, {-domain.offset[0], -domain.offset[1], -domain.offset[2]}));
  }
  return disjoint_cover(reach);
}

double cpml_cell_share(const std::vector<CpmlSlab>& slabs, const LocalDomain& domain) {
  std::vector<Box> boxes;
  for (const CpmlSlab& s : slabs) boxes.push_back(s.global);
  std::int64_t in_slabs = 0;
  for (const Box& b : disjoint_cover(boxes)) in_slabs += b.cells();
  const Index3& n = domain.global;
  return double(in_slabs) / double(std::max<std::int64_t>(n[0] * n[1] * n[2], 1));
}

SplitBoxes split_for_overlap(const Index3& n, const std::array<bool, 3>& filled, int side) {
  SplitBoxes s;
  s.interior = {{0, 0, 0}, n};
  for (int a = 0; a < 3; ++a) {
    if (!filled[a] || n[a] == 0) continue;
    // The layer next to the filled ghost leaves the interior and becomes a shell slab, cut
    // to what the interior still spans on the axes already split (so slabs are disjoint).
    Box slab = s.interior;
    if (side == 1) {
      slab.lo[a] = n[a] - 1;
      s.interior.hi[a] = n[a] - 1;
    } else {
      slab.hi[a] = 1;
      s.interior.lo[a] = std::min<std::int64_t>(1, n[a]);
    }
    if (!slab.empty()) s.shell.push_back(slab);
  }
  return s;
}

Stepper::Stepper(const Model& model, const LocalDomain& domain, std::unique_ptr<Engine> engine,
                 std::unique_ptr<Ghosts> ghosts)
    : model_(model), domain_(domain), engine_(std::move(engine)), ghosts_(std::move(ghosts)) {
  const Layout& layout = engine_->layout();
  // Materials.
  std::vector<MaterialIndex> index(static_cast<std::size_t>(layout.elements()));
  paint_materials(model_, domain_, layout, index);
  const MaterialTable table = material_table(model_);
  bool uniform = true;
  for (std::int64_t k = 0; k < domain_.n[2] && uniform; ++k)
    for (std::int64_t j = 0; j < domain_.n[1] && uniform; ++j)
      for (std::int64_t i = 0; i < domain_.n[0]; ++i)
        if (index[static_cast<std::size_t>(layout.at(i, j, k))] != index[static_cast<std::size_t>(layout.at(0, 0, 0))]) {
          uniform = false;
          break;
        }
  // The blocked sweep across ranks computes a z neighbour's planes again with this rank's
  // table: a rank keeps its one-material table only where every rank has that one material.
  if (blocked_across_ranks()) {
    const double mine = uniform ? index[static_cast<std::size_t>(layout.at(0, 0, 0))] : -1.0;
    std::array<double, 2> agreed{mine, -mine};  // the same everywhere: max == -max(-value)
    ghosts_->max_over_ranks(agreed);
    uniform = uniform && agreed[0] == -agreed[1];
  }
  if (uniform) {
    // One material here: give the engine a table whose entry 0 is it, so it skips the index.
    MaterialTable one;
    const int m = index[static_cast<std::size_t>(layout.at(0, 0, 0))];
    one.coeffs = {table.coeffs[m]};
    one.eps_r = {table.eps_r[m]};
    one.cb = {table.cb[m]};
    engine_->set_materials(index, one, true);
  } else {
    engine_->set_materials(index, table, false);
  }
  // Dispersive materials: J (and P) arrays over the rank's part of the dispersive bounds.
  const DispersionSetup disp =
      dispersion_setup(model_, domain_, uniform ? int(index[static_cast<std::size_t>(layout.at(0, 0, 0))]) : -1);
  dispersion_box_ = disp.box;
  dispersion_io_box_ = disp.io_box;
  engine_->set_dispersion(disp);

  // The TFSF box: the 1D incident grid and this rank's corrections.
  for (const TfsfSpec& spec : model_.tfsf) {
    tfsf_ = std::make_unique<Tfsf>(model_, spec, domain_, layout, table.coeffs[static_cast<std::size_t>(model_.background)],
                                   h_coefficients(model_), [&](std::int64_t c) {
                                     return table.coeffs[index[static_cast<std::size_t>(c)]];
                                   });
    engine_->set_tfsf(tfsf_->h_terms(), tfsf_->e_terms());
  }

  slabs_ = cpml_slabs(model_, domain_);
  engine_->set_cpml(slabs_);
  set_node_overrides(index);

  for (int a = 0; a < 3; ++a)
    if (!model_.periodic(a) && domain_.offset[a] == 0) pec_axes_.push_back(a);
  choose_sweep();
  h_split_ = split_for_overlap(domain_.n, ghosts_->filled_late(HalfStep::e_for_h), 1);
  e_split_ = split_for_overlap(domain_.n, ghosts_->filled_late(HalfStep::h_for_e), 0);

  // Sources this rank holds, in deck order.
  for (const SourceSpec& s : model_.sources) {
    if (!domain_.owns(s.node.cell)) continue;
    LocalSource ls;
    ls.spec = &s;
    const Index3 c = s.node.cell;
    ls.kick.index = layout.at(c[0] - domain_.offset[0], c[1] - domain_.offset[1], c[2] - domain_.offset[2]);
    ls.kick.component = s.node.component;
    ls.kick.hard = s.hard ? 1 : 0;
    // Soft: a current element I*l in one cell, J = I*l / dV, enters as E -= cb J.
    double cb = table.cb[index[static_cast<std::size_t>(ls.kick.index)]];
    // A node with its own coefficients (smoothing, an eps_r map) takes its own cb.
    for (const NodeOverride& o : overrides_)
      if (o.index == ls.kick.index && o.component == ls.kick.component)
        cb = node_cb(model_, o.eps_r, o.sigma);
    ls.scale = s.hard ? s.amplitude : -cb * s.amplitude / model_.cell_volume();
    sources_.push_back(ls);
  }
  // Every source's |scale| on every rank (its owner's), so that all ranks agree on the steps
  // after which a source acts (acts_after): the blocked sweep's passes are collective.
  source_scale_.assign(model_.sources.size(), 0.0);
  for (const LocalSource& ls : sources_)
    source_scale_[static_cast<std::size_t>(ls.spec - model_.sources.data())] = std::abs(ls.scale);
  ghosts_->max_over_ranks(source_scale_);

  // Current sheets whose layer this rank holds.
  for (const PlaneWaveSpec& w : model_.plane_waves) {
    const std::int64_t local = w.layer - domain_.offset[w.axis];
    if (local >= 0 && local < domain_.n[w.axis]) sheets_.emplace_back(local, &w);
  }
  spectra_ = std::make_unique<Spectra>(model_, domain_, *engine_);

  // Probe samples this rank holds.
  std::vector<Sample> samples;
  int column = 0;
  for (const ProbeSpec& p : model_.probes) {
    for (const Node& node : p.nodes) {
      if (domain_.owns(node.cell)) {
        const Index3 c = node.cell;
        samples.push_back({layout.at(c[0] - domain_.offset[0], c[1] - domain_.offset[1], c[2] - domain_.offset[2]),
                           node.component});
        sample_columns_.push_back(column);
      }
      ++column;
    }
  }
  total_columns_ = column;
  engine_->set_samples(samples, kSampleRows);
  choose_blocked();
  material_index_ = std::move(index);  // for the material output (release_material_index)
}

void Stepper::set_node_overrides(std::span<const MaterialIndex> index) {
  // CPML slabs (and the layer past each, whose E reads a slab's H) keep the table's
  // coefficients: their corrections use the cell's cb.
  std::vector<Box> excluded;
  for (const CpmlSlab& s : slabs_) {
    Box b = s.global;
    for (int a = 0; a < 3; ++a) ++b.hi[a];
    excluded.push_back(b);
  }
  overrides_ = fdtd::node_overrides(model_, domain_, engine_->layout(), index, excluded);
  std::vector<NodeCoeffs> nodes;
  nodes.reserve(overrides_.size());
  for (const NodeOverride& o : overrides_) {
    nodes.push_back({o.index, o.component, o.ca, o.c1, o.c2});
    // A node on a low face next to a neighbour (or a wrapped periodic axis) reads the new H of
    // the ghost layer, which the fused sweep recomputes but does not keep.
    const Index3 cell = engine_->layout().cell_of(o.index);
    for (int a = 0; a < 3; ++a)
      if (cell[a] == 0 && domain_.neighbour[a][0]) overrides_read_ghost_h_ = true;
  }
  engine_->set_overrides(nodes);
}

void Stepper::choose_sweep() {
  if (model_.sweep == Sweep::split) {
    sweep_reason_ = "split (fdtd.sweep = \"split\")";
    return;
  }
  // The fused sweep computes H and E without a pause between them. Neighbours and periodic
  // axes it handles by recomputing the new H of the low ghost layers (one exchange per step),
  // CPML slabs by redoing their cells' E afterwards (cpml_redo_boxes); an update that acts
  // between H and E everywhere in a region it cannot take.
  std::string why;
  bool able = false;
  if (tfsf_)
    why = "the TFSF box corrects H between the H and E updates";
  else if (overrides_read_ghost_h_)
    why = "nodes with their own coefficients (smoothing, an eps_r map) lie on a face next to a neighbour, and the "
          "fused sweep does not keep the new H of the ghost layer they read";
  else if (!dispersion_box_.empty())
    why = "dispersive materials update J between the H and E updates (their currents J(n+1/2) need H(n+1/2) "
          "done and E(n) intact), which the fused sweep does not do";
  else
    able = engine_->enable_fused(why);
  // Every rank the same sweep: the exchanges differ (dispersive cells or device memory may
  // exist on some ranks only).
  fused_ = ghosts_->on_every_rank(able);
  if (able && !fused_) why = "another rank cannot take the fused sweep (dispersive cells or no room for a second copy)";
  if (fused_) {
    sweep_reason_ = "fused (H and E in one pass over memory)";
    // Ghosts that arrive while the sweep runs: along z alone (whole planes, which only the end
    // stretches read); TESSERA_FDTD_FUSED_OVERLAP=0 waits for them first.
    const std::array<bool, 3> late = ghosts_->filled_late(HalfStep::fused);
    fused_overlaps_z_ = late[2] && !late[0] && !late[1] && env::get_boolean("TESSERA_FDTD_FUSED_OVERLAP").value_or(true);
    if (fused_overlaps_z_) sweep_reason_ += "; the z ghost planes travel while the inner z stretches update";
    if (!slabs_.empty()) choose_cpml_path();
  } else if (model_.sweep == Sweep::fused) {
    throw InputError("fdtd.sweep = \"fused\" is not possible for this run: " + why +
                     " (use sweep = \"auto\" or \"split\")");
  } else {
    sweep_reason_ = "split: " + why;
  }
}

std::vector<Kick> Stepper::kicks_at(std::int64_t n) const {
  std::vector<Kick> kicks;
  for (const LocalSource& s : sources_) {
    // Soft sources are currents at the half step, hard ones set E at the new time.
    const double t = (double(n) + (s.kick.hard ? 1.0 : 0.5)) * model_.dt;
    Kick k = s.kick;
    k.value = static_cast<float>(s.scale * s.spec->waveform(t));
    // A soft kick that rounds to zero is left out: adding it changes nothing but the sign of a
    // zero field, and a source that has fallen silent (a pulse's tail) then no longer acts, so
    // the blocked sweep can hold its steps back (acts_after). Every sweep leaves it out alike.
    if (!k.hard && k.value == 0.0f) continue;
    kicks.push_back(k);
  }
  return kicks;
}

float Stepper::sheet_value(const PlaneWaveSpec& w, std::int64_t n) const {
  // A sheet is a soft current like a point source: K(t) at t = (n + 1/2) dt.
  return static_cast<float>(w.amplitude * w.waveform((double(n) + 0.5) * model_.dt));
}

// Profile regions (core/profile.hpp): kernel regions wait for the compute stream when
// profiling is on, so each holds its kernels' time; the halo regions hold the ghost transfer.
void Stepper::step() {
  if (block_steps_ > 0 && defer_step()) return;
  Engine& e = *engine_;
  e.save_override_e();  // E(n) of the nodes with their own coefficients, redone after the E update
  if (fused_) {
    fused_bulk();
    {
      TESSERA_PROFILE_SYNC("fdtd.update_fused", e.compute_stream());
      e.apply_override_e();
    }
    if (!slabs_.empty() && !cpml_in_sweep_) repair_cpml();
    finish_step();
    return;
  }
  split_bulk();
  finish_step();
}

// The fused sweep and its exchange. Neighbours along z alone: the stretches away from the z
// faces while the ghost planes travel, then the two end stretches (one launch). Other cuts: one
// exchange, then the sweep (sweeping the cells that read no ghost while the ghosts travel, and
// a shell of up to six boxes after them, measured slower on an H100: the shell's launches cost
// more than the exchange they hid, docs/performance.md).
void Stepper::fused_bulk() {
  Engine& e = *engine_;
  const stream_t cs = e.compute_stream();
  {
    TESSERA_PROFILE("fdtd.ghosts");
    e.halo_after_compute();
    ghosts_->begin(HalfStep::fused, e);
  }
  if (fused_overlaps_z_) {
    TESSERA_PROFILE_SYNC("fdtd.update_fused", cs);
    e.update_fused(SweepPart::inner);
  }
  {
    TESSERA_PROFILE("fdtd.ghosts");
    ghosts_->finish(HalfStep::fused, e);
  }
  TESSERA_PROFILE_SYNC("fdtd.update_fused", cs);
  e.update_fused(fused_overlaps_z_ ? SweepPart::outer : SweepPart::all);
}

// The split step's H and E (CPML and TFSF included), the interior of each while its ghosts
// travel, then the shell.
void Stepper::split_bulk() {
  Engine& e = *engine_;
  const stream_t cs = e.compute_stream();
  {
    TESSERA_PROFILE("fdtd.ghosts");
    ghosts_->begin(HalfStep::e_for_h, e);
  }
  {
    TESSERA_PROFILE_SYNC("fdtd.update_h", cs);
    e.update_h(h_split_.interior);
  }
  {
    TESSERA_PROFILE("fdtd.ghosts");
    ghosts_->finish(HalfStep::e_for_h, e);
  }
  {
    TESSERA_PROFILE_SYNC("fdtd.update_h", cs);
    for (const Box& b : h_split_.shell) e.update_h(b);
  }
  {
    TESSERA_PROFILE_SYNC("fdtd.cpml", cs);
    for (std::size_t s = 0; s < slabs_.size(); ++s) e.cpml_h(static_cast<int>(s));
  }
  if (tfsf_) {
    // H(n+1/2) across the box surface with E_inc(n), before the H ghosts go out; then H_inc.
    TESSERA_PROFILE_SYNC("fdtd.sources", cs);
    e.apply_tfsf(false, tfsf_->e1());
    tfsf_->advance_h();
  }

  {
    TESSERA_PROFILE("fdtd.ghosts");
    ghosts_->begin(HalfStep::h_for_e, e);
  }
  {
    TESSERA_PROFILE_SYNC("fdtd.update_e", cs);
    e.update_e(e_split_.interior);
  }
  {
    TESSERA_PROFILE("fdtd.ghosts");
    ghosts_->finish(HalfStep::h_for_e, e);
  }
  {
    TESSERA_PROFILE_SYNC("fdtd.update_e", cs);
    for (const Box& b : e_split_.shell) e.update_e(b);
    e.apply_override_e();
  }
  {
    TESSERA_PROFILE_SYNC("fdtd.cpml", cs);
    for (std::size_t s = 0; s < slabs_.size(); ++s) e.cpml_e(static_cast<int>(s));
  }
}

void Stepper::choose_cpml_path() {
  // The sweep applies the CPML corrections itself unless a low ghost cell it recomputes (a
  // neighbour's cell) lies in a slab: that cell's psi is the neighbour's. Every rank alike.
  bool inside = true;
  for (int a = 0; a < 3; ++a) {
    if (!domain_.remote(a, 0)) continue;
    Box ghost = domain_.global_box();
    ghost.lo[a] = domain_.offset[a] - 1;
    ghost.hi[a] = domain_.offset[a];
    for (const CpmlSlab& s : slabs_) inside = inside && intersect(ghost, s.global).empty();
  }
  cpml_in_sweep_ = ghosts_->on_every_rank(inside);
  if (cpml_in_sweep_) {
    if (!engine_->fuse_cpml()) throw std::logic_error("Stepper: the engine cannot take the CPML into its fused sweep");
    sweep_reason_ += "; CPML corrections inside the sweep";
    return;
  }
  cpml_redo_ = cpml_redo_boxes(slabs_, domain_);
  std::int64_t redo = 0;
  for (const Box& b : cpml_redo_) redo += b.cells();
  sweep_reason_ += fmt::format(
      "; a slab reaches a neighbour's ghost layer, so the E of {:.1f}% of the cells is redone after the CPML H "
      "correction",
      100.0 * double(redo) / double(std::max<std::int64_t>(domain_.local().cells(), 1)));
}

void Stepper::repair_cpml() {
  // The split step's CPML in the same order: H corrected with E(n) (the copy the sweep read),
  // then the E of every cell that read a corrected H redone from E(n), then E corrected. The
  // redone cells on a rank's low face read H ghosts, which must carry the neighbour's
  // corrections: one more (tangential H) exchange, on every rank alike.
  TESSERA_PROFILE_SYNC("fdtd.cpml", engine_->compute_stream());
  Engine& e = *engine_;
  for (std::size_t s = 0; s < slabs_.size(); ++s) e.fused_cpml_h(static_cast<int>(s));
  ghosts_->begin(HalfStep::h_for_e, e);
  ghosts_->finish(HalfStep::h_for_e, e);
  for (const Box& b : cpml_redo_) {
    e.fused_restore_e(b);
    e.update_e(b);
  }
  for (std::size_t s = 0; s < slabs_.size(); ++s) e.cpml_e(static_cast<int>(s));
}

void Stepper::finish_step() {
  Engine& e = *engine_;
  TESSERA_PROFILE_SYNC("fdtd.sources", e.compute_stream());  // TFSF, sheets, kicks, PEC, probes, DFTs
  if (tfsf_) {
    // E(n+1) across the box surface with H_inc(n+1/2); then E_inc(n+1).
    e.apply_tfsf(true, tfsf_->h1());
    tfsf_->advance_e(step_, model_.dt);
  }
  // Sheets and soft sources whose value rounds to zero are left out (kicks_at says why).
  for (const auto& [layer, w] : sheets_)
    if (const float k = sheet_value(*w, step_); k != 0.0f) e.add_sheet(w->component, w->axis, layer, k);
  if (!sources_.empty())
    if (const std::vector<Kick> kicks = kicks_at(step_); !kicks.empty()) e.apply_kicks(kicks);
  for (int a : pec_axes_) e.zero_tangential_e(a);

  ++step_;
  if (total_columns_ > 0 && step_ % model_.probe_every == 0) sample_now();
  if (!spectra_->empty()) spectra_->accumulate(step_, e);
}

void Stepper::sample_now() {
  flush();
  if (engine_rows_ == kSampleRows) spill_samples();
  engine_->sample(engine_rows_++);
  sample_steps_.push_back(step_);
}

void Stepper::spill_samples() {
  std::vector<float> rows(static_cast<std::size_t>(engine_rows_) * sample_columns_.size());
  engine_->read_samples(engine_rows_, rows);
  host_samples_.insert(host_samples_.end(), rows.begin(), rows.end());
  engine_rows_ = 0;
}

std::vector<float> Stepper::drain_samples(std::vector<std::int64_t>& steps) {
  flush();
  spill_samples();
  std::vector<float> out = std::move(host_samples_);
  host_samples_.clear();
  steps = std::move(sample_steps_);
  sample_steps_.clear();
  return out;
}

Stepper::Energy Stepper::local_energy() {
  flush();
  ghosts_->begin(HalfStep::e_for_h, *engine_);
  ghosts_->finish(HalfStep::e_for_h, *engine_);
  const EnergySums s = engine_->energy();
  const double dv = model_.cell_volume();
  return {0.5 * kEps0 * dv * s.electric, 0.5 * kMu0 * dv * s.magnetic};
}

std::unique_ptr<Stepper> make_serial_stepper(const Model& model) {
  const LocalDomain d = whole_domain(model.cells, {model.periodic(0), model.periodic(1), model.periodic(2)});
  return std::make_unique<Stepper>(model, d, make_cpu_engine(d, h_coefficients(model)), make_local_ghosts(d));
}

}  // namespace tessera::fdtd
