#include "solvers/fdtd/stepper.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {

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
    const double cb = table.cb[index[static_cast<std::size_t>(ls.kick.index)]];
    ls.scale = s.hard ? s.amplitude : -cb * s.amplitude / model_.cell_volume();
    sources_.push_back(ls);
  }

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
}

void Stepper::choose_sweep() {
  if (model_.sweep == Sweep::split) {
    sweep_reason_ = "split (fdtd.sweep = \"split\")";
    return;
  }
  // The fused sweep computes H and E without a pause between them, so nothing may change a
  // ghost layer or an H value in between: only static PEC walls around this rank.
  std::string why;
  bool wraps = false, neighbour = false;
  for (int a = 0; a < 3; ++a) {
    wraps = wraps || model_.periodic(a);
    neighbour = neighbour || domain_.neighbour[a][0] || domain_.neighbour[a][1];
  }
  if (tfsf_)
    why = "the TFSF box corrects H between the H and E updates";
  else if (!dispersion_box_.empty())
    why = "dispersive materials update J between the H and E updates (their currents J(n+1/2) need H(n+1/2) "
          "done and E(n) intact), which the fused sweep does not do";
  else if (!slabs_.empty())
    why = "CPML slabs correct H between the H and E updates";
  else if (wraps)
    why = "a periodic axis wraps the ghost layers between the H and E updates";
  else if (neighbour)
    why = "the halo exchange fills ghost layers between the H and E updates";
  else if (engine_->enable_fused(why))
    fused_ = true;
  if (fused_) {
    sweep_reason_ = "fused (H and E in one pass over memory)";
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
    kicks.push_back(k);
  }
  return kicks;
}

void Stepper::step() {
  Engine& e = *engine_;
  if (fused_) {
    e.update_fused();
    finish_step();
    return;
  }
  ghosts_->begin(HalfStep::e_for_h, e);
  e.update_h(h_split_.interior);
  ghosts_->finish(HalfStep::e_for_h, e);
  for (const Box& b : h_split_.shell) e.update_h(b);
  for (std::size_t s = 0; s < slabs_.size(); ++s) e.cpml_h(static_cast<int>(s));
  if (tfsf_) {
    // H(n+1/2) across the box surface with E_inc(n), before the H ghosts go out; then H_inc.
    e.apply_tfsf(false, tfsf_->e1());
    tfsf_->advance_h();
  }

  ghosts_->begin(HalfStep::h_for_e, e);
  e.update_e(e_split_.interior);
  ghosts_->finish(HalfStep::h_for_e, e);
  for (const Box& b : e_split_.shell) e.update_e(b);
  for (std::size_t s = 0; s < slabs_.size(); ++s) e.cpml_e(static_cast<int>(s));
  finish_step();
}

void Stepper::finish_step() {
  Engine& e = *engine_;
  if (tfsf_) {
    // E(n+1) across the box surface with H_inc(n+1/2); then E_inc(n+1).
    e.apply_tfsf(true, tfsf_->h1());
    tfsf_->advance_e(step_, model_.dt);
  }
  // A sheet is a soft current like a point source: K(t) at t = (n + 1/2) dt.
  for (const auto& [layer, w] : sheets_)
    e.add_sheet(w->component, w->axis, layer,
                static_cast<float>(w->amplitude * w->waveform((double(step_) + 0.5) * model_.dt)));
  if (!sources_.empty()) e.apply_kicks(kicks_at(step_));
  for (int a : pec_axes_) e.zero_tangential_e(a);

  ++step_;
  if (total_columns_ > 0 && step_ % model_.probe_every == 0) sample_now();
  if (!spectra_->empty()) spectra_->accumulate(step_, e);
}

void Stepper::sample_now() {
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
  spill_samples();
  std::vector<float> out = std::move(host_samples_);
  host_samples_.clear();
  steps = std::move(sample_steps_);
  sample_steps_.clear();
  return out;
}

Stepper::Energy Stepper::local_energy() {
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
