// The Stepper's blocked sweep (fdtd.sweep = "blocked", or "auto" where it applies; issue 36):
// whole steps held back and then run several to one pass over memory (Engine::update_blocked).
//
// A step after which nothing acts (no source, sheet, probe sample or monitor accumulation:
// acts_after) is only counted; its bulk update waits. A pass runs when block_steps steps wait,
// when a step after which something acts ends it (that step's sources, probes and monitors
// then act as after any step: finish_step), or when anything looks at the fields (engine(),
// energy, probes, set_step: flush). Outputs and checkpoints reach the fields through engine(),
// so they see their step's fields. A lone held-back step runs as a fused (cpu: split) step.
// Across ranks (grids cut along z) each pass of k steps first exchanges k planes next to each
// z face. CPML slabs (one rank) get their corrections inside the pass (Engine::update_blocked).
#include <fmt/format.h>

#include <cmath>

#include "core/env.hpp"
#include "core/error.hpp"
#include "core/profile.hpp"
#include "solvers/fdtd/stepper.hpp"

namespace tessera::fdtd {

bool Stepper::blocked_across_ranks() const {
  // Whether the blocked sweep may run with z neighbours: forced, or auto (which takes it on a
  // z cut: 1.83x the fused step on 2 H200s, docs/fdtd.md "Across ranks"). Every rank of a grid
  // cut along z has a z neighbour, so the answer is the same on all of them.
  return (model_.sweep == Sweep::blocked || model_.sweep == Sweep::automatic) &&
         (domain_.remote(2, 0) || domain_.remote(2, 1));
}

void Stepper::choose_blocked() {
  const bool forced = model_.sweep == Sweep::blocked;
  if (!forced && model_.sweep != Sweep::automatic) return;
  // auto: only where the fused sweep runs (a pass is its kind of update, and the cpu engine,
  // which has no fused sweep, has only a reference pass, no faster than split steps).
  if (!forced && !fused_) return;
  if (!forced && !slabs_.empty()) {
    // A slab cell costs the blocked pass more than a bulk cell (instructions: ncu,
    // docs/performance.md). When the slab path cost several times a bulk update (1.25x the
    // fused CPML sweep at 512^3 with 10-cell slabs, 11.3% of the cells), the two were about even
    // near 20% by that count; the lighter slab path since (1.65x at k = 3) leaves this 15% on
    // the safe side. Measured at one size only.
    constexpr double kMostSlabShare = 0.15;
    const double share = cpml_cell_share(slabs_, domain_);
    if (share > kMostSlabShare) {
      sweep_reason_ += fmt::format(
          "; not blocked: the CPML slabs hold {:.1f}% of the cells (auto takes the blocked sweep with CPML up to "
          "{:.0f}%; fdtd.sweep = \"blocked\" forces it)",
          100 * share, 100 * kMostSlabShare);
      return;
    }
  }
  // Something that acts after every step leaves nothing to hold back: auto keeps the fused
  // sweep; a forced blocked sweep runs, one fused step at a time, and says so.
  std::string every;
  bool hard = false;
  for (const SourceSpec& s : model_.sources) hard = hard || s.hard;
  if (hard)
    every = "hard sources set E after every step";
  else if (total_columns_ > 0 && model_.probe_every == 1)
    every = "the probes sample every step (fdtd.probes.every = 1)";
  for (const DftSpec& d : model_.dfts)
    if (every.empty() && d.spectrum.every == 1) every = fmt::format("dft monitor \"{}\" accumulates every step", d.name);
  for (const FluxSpec& f : model_.fluxes)
    if (every.empty() && f.spectrum.every == 1) every = fmt::format("flux plane \"{}\" accumulates every step", f.name);
  if (!forced && !every.empty()) {
    sweep_reason_ += "; not blocked: " + every;
    return;
  }
  std::string why;
  // Nodes with their own coefficients (smoothing, an eps_r map) are redone after each step's E
  // update: a pass of several steps has no place for that.
  const bool able = overrides_.empty() ? engine_->enable_blocked(model_.pass_steps(), why)
                                       : (why = "nodes with their own E coefficients (fdtd.smoothing, an eps_r map) are "
                                                "redone after every step",
                                          false);
  // Every rank the same steps (a pass needs no exchange, but the steps between passes do).
  const bool everywhere = ghosts_->on_every_rank(able);
  if (able && !everywhere) why = "another rank cannot take the blocked sweep";
  if (!everywhere) {
    if (forced)
      throw InputError("fdtd.sweep = \"blocked\" is not possible for this run: " + why +
                       " (use sweep = \"auto\", \"fused\" or \"split\")");
    sweep_reason_ += "; not blocked: " + why;
    return;
  }
  block_steps_ = model_.pass_steps();
  // Across ranks (z only) a pass computes the neighbours' planes next to it again: their
  // materials once now, their fields before every pass (run_pass).
  const bool across = domain_.remote(2, 0) || domain_.remote(2, 1);
  ghosts_->exchange_pass(*engine_, block_steps_, true);
  // On by default: on 4 H200s (512^3 per rank, k = 4) it took the step from 85.3% to 93.3% of
  // one PEC rank (docs/performance.md).
  blocked_overlaps_z_ = across && env::get_boolean("TESSERA_FDTD_BLOCKED_OVERLAP").value_or(true);
  const std::string cpml = slabs_.empty() ? "" : "; the CPML slabs' corrections inside the pass";
  sweep_reason_ = fmt::format(
      "blocked (up to {} steps per pass over memory{}{}; a step after which a source, probe or monitor acts ends a "
      "pass, a lone step runs {}{}){}",
      block_steps_,
      !across               ? ""
      : blocked_overlaps_z_ ? ", one exchange of that many z planes per pass, while the inner z stretches update"
                            : ", one exchange of that many z planes per pass",
      cpml, fused_ ? "fused" : "split",
      model_.sources.empty() && model_.plane_waves.empty()
          ? ""
          : "; soft sources and sheets act until their value rounds to zero in float32, passes follow",
      every.empty() ? "" : "; but " + every + ", so every step runs " + (fused_ ? "fused" : "split"));
}

bool Stepper::acts_after(std::int64_t n) const {
  if (tfsf_) return true;
  // Soft sources and sheets act while their value does not round to zero (kicks_at), on
  // every rank alike (the ranks step the same passes): from the model, not this rank's part.
  const double t = (double(n) + 0.5) * model_.dt;
  for (std::size_t i = 0; i < model_.sources.size(); ++i) {
    const SourceSpec& s = model_.sources[i];
    if (s.hard || static_cast<float>(source_scale_[i] * std::abs(s.waveform(t))) != 0.0f) return true;
  }
  for (const PlaneWaveSpec& w : model_.plane_waves)
    if (sheet_value(w, n) != 0.0f) return true;
  // finish_step's probes and monitors see step n + 1.
  const std::int64_t next = n + 1;
  if (total_columns_ > 0 && next % model_.probe_every == 0) return true;
  for (const DftSpec& d : model_.dfts)
    if (next % d.spectrum.every == 0) return true;
  for (const FluxSpec& f : model_.fluxes)
    if (next % f.spectrum.every == 0) return true;
  return false;
}

bool Stepper::defer_step() {
  if (!acts_after(step_)) {
    ++deferred_;
    ++step_;
    if (deferred_ == block_steps_) flush();
    return true;
  }
  if (deferred_ == 0) return false;  // a lone step: step()'s fused path
  // This step ends the pass: the held-back steps and it in one, then what acts after it.
  const int steps = deferred_ + 1;
  deferred_ = 0;
  run_pass(steps);
  finish_step();
  return true;
}

void Stepper::flush() {
  if (deferred_ == 0) return;
  const int steps = deferred_;
  deferred_ = 0;
  run_pass(steps);
}

void Stepper::run_pass(int steps) {
  Engine& e = *engine_;
  if (steps >= 2) {
    // The PEC walls' zeroing after each step is part of the pass.
    if (blocked_overlaps_z_) {
      {
        TESSERA_PROFILE("fdtd.ghosts");
        ghosts_->begin_pass(e, steps);
      }
      {
        TESSERA_PROFILE_SYNC("fdtd.update_blocked", e.compute_stream());
        e.update_blocked(steps, SweepPart::inner);  // reads no plane beyond a z face
      }
      {
        TESSERA_PROFILE("fdtd.ghosts");
        ghosts_->finish_pass(e);
      }
      TESSERA_PROFILE_SYNC("fdtd.update_blocked", e.compute_stream());
      e.update_blocked(steps, SweepPart::outer);
    } else {
      {
        TESSERA_PROFILE("fdtd.ghosts");
        ghosts_->exchange_pass(e, steps);
      }
      TESSERA_PROFILE_SYNC("fdtd.update_blocked", e.compute_stream());
      e.update_blocked(steps);
    }
    ++blocked_passes_;
    return;
  }
  // One step: step()'s bulk update with nothing acting after it but the walls.
  if (fused_) {
    fused_bulk();
    if (!slabs_.empty() && !cpml_in_sweep_) repair_cpml();
  } else {
    split_bulk();
  }
  for (int a : pec_axes_) e.zero_tangential_e(a);
}

}  // namespace tessera::fdtd
