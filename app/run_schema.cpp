#include "app/run_schema.hpp"

namespace tessera::app {

deck::Schema run_schema(const Registry&) {
  deck::Schema s;
  s.table("run", "what to run and where")
      .integer("steps", "number of steps to run (the solver's step: a time step, a root, a scan)").min(0).default_value(100)
      .floating("end_time", "stop once the simulated time reaches this (in the solver's time unit)").min(0).optional()
      .choice("backend", "where the solver runs: cuda when every rank sees a GPU (auto), or forced", {"auto", "cpu", "cuda"})
      .default_value("auto")
      .choice("transport", "how device buffers move between ranks (auto: nccl, then CUDA-aware mpi, then staged)",
              {"auto", "staged", "mpi", "nccl"})
      .default_value("auto")
      .string("output_dir", "directory for outputs, diagnostics and checkpoints (created if missing)")
      .default_value("output")
      .floating("status_interval", "wall-clock seconds between status lines").unit("s").greater_than(0).default_value(10.0)
      .boolean("profile", "time the run's regions: a table at the end and <output_dir>/profile.h5 (as --profile)")
      .default_value(false);
  s.table("output", "solver outputs (snapshots, fields, results)")
      .integer("every", "write an output every this many steps (0: only at the end)").min(0).default_value(0)
      .boolean("at_end", "write an output after the last step").default_value(true)
      .boolean("openpmd", "also write the outputs as openPMD 1.1.0 series in <output_dir>/openpmd (fdtd fields, nbody bodies)")
      .default_value(false)
      .boolean("materials", "fdtd: write the whole material grid (eps_x eps_y eps_z sigma material) once at the start, "
               "<output_dir>/materials.h5 and materials.xmf")
      .default_value(false);
  s.table("diagnostics", "conserved quantities and other checks, logged and appended to a file")
      .integer("every", "compute diagnostics every this many steps (0: never)").min(0).default_value(0);
  s.table("checkpoint", "restart files")
      .integer("every", "write a checkpoint every this many steps (0: never)").min(0).default_value(0)
      .integer("keep", "number of newest checkpoints kept").min(1).default_value(2)
      .string("dir", "checkpoint directory (empty: <output_dir>/checkpoints)").default_value("")
      .boolean("at_end", "write a checkpoint after the last step").default_value(false)
      .boolean("on_signal", "on SIGUSR1/SIGUSR2/SIGTERM/SIGINT (Slurm --signal), write a checkpoint and stop cleanly").default_value(true);
  return s;
}

deck::SolverCatalog solver_catalog(const Registry& registry) {
  deck::SolverCatalog catalog;
  catalog.run_schema = run_schema(registry);
  catalog.solvers = registry.solver_names();
  catalog.solver_schema = [&registry](std::string_view solver) { return registry.find_solver(solver)->schema(); };
  return catalog;
}

}  // namespace tessera::app
