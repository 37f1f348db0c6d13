#pragma once
// The fdtd Solver for the run loop: builds the model from the deck, decomposes the grid,
// and drives the Stepper, the probe log, the field outputs and checkpoints.
#include <memory>

#include "comm/cart.hpp"
#include "solvers/fdtd/dft_output.hpp"
#include "solvers/fdtd/field_output.hpp"
#include "solvers/fdtd/flux.hpp"
#include "solvers/fdtd/material_output.hpp"
#include "solvers/fdtd/probe_log.hpp"
#include "solvers/fdtd/stepper.hpp"
#include "solvers/solver.hpp"

namespace tessera::fdtd {

class FdtdSolver final : public Solver {
 public:
  explicit FdtdSolver(RunContext& run);

  void initialize() override;
  void restart(io::CheckpointReader& checkpoint) override;
  void advance() override;
  void synchronize() override { stepper_->engine().synchronize(); }
  std::int64_t step() const override { return stepper_->steps(); }
  double time() const override { return stepper_->time(); }
  void write_output() override;
  void diagnostics() override;
  void write_checkpoint(io::CheckpointWriter& checkpoint) override;
  double work_per_step() const override { return double(model_.total_cells()); }
  std::string work_unit() const override { return "cell-updates"; }
  void summary() override;

  // For tests: the stepper of this rank.
  Stepper& stepper() { return *stepper_; }

 private:
  comm::Context& ctx_;
  Model model_;
  std::unique_ptr<comm::CartDecomposition> decomp_;
  std::unique_ptr<Stepper> stepper_;
  std::unique_ptr<ProbeLog> probes_;
  std::unique_ptr<FieldWriter> fields_;
  std::unique_ptr<MaterialWriter> materials_;  // the material grid, once at the start
  std::unique_ptr<DftWriter> dfts_;
  std::unique_ptr<FluxLog> fluxes_;
  // <name>_dft.h5 and flux.h5 (at output steps and at the end); the step they hold.
  void write_spectra();
  std::int64_t spectra_step_ = -1;
};

}  // namespace tessera::fdtd
