#include "solvers/fdtd/fdtd_solver.hpp"

#include <fmt/format.h>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/log.hpp"
#include "solvers/fdtd/dispersion.hpp"
#include "solvers/fdtd/geometry/load.hpp"
#include "solvers/fdtd/rank_grid.hpp"
#include "solvers/fdtd/state_io.hpp"

namespace tessera::fdtd {
namespace {

// Probe rows kept in memory before they go to probes.h5 during a long run.
constexpr std::int64_t kFlushRows = 8192;

const char* face_name(FaceKind f) { return f == FaceKind::pec ? "pec" : f == FaceKind::periodic ? "periodic" : "cpml"; }

}  // namespace

FdtdSolver::FdtdSolver(RunContext& run) : ctx_(run.ctx), model_(params_from_deck(run.deck)) {
  const std::array<int, 3> ranks = default_rank_grid(model_, ctx_.size(), run.backend);
  if (ranks != model_.ranks)
    log::info("fdtd: ranks 1x1x{} ({}; fdtd.ranks chooses otherwise)", ctx_.size(),
              model_.sweep == Sweep::blocked
                  ? "fdtd.sweep = \"blocked\" takes grids cut along z only"
                  : "on GPUs the blocked sweep runs across ranks on a z cut, and the fused sweep overlaps whole-plane "
                    "ghosts there");
  try {
    decomp_ = std::make_unique<comm::CartDecomposition>(
        ctx_, model_.cells, ranks, std::array<bool, 3>{model_.periodic(0), model_.periodic(1), model_.periodic(2)});
  } catch (const InputError& e) {
    // The same on every rank (a function of the deck and the rank count): name the key.
    throw comm::AgreedInputError(0, fmt::format("{}: {}", run.deck.describe("fdtd.ranks"), e.what()));
  }
  const LocalDomain domain = local_domain(*decomp_);
  // Meshes (read on rank 0, broadcast) and voxel maps (each rank its part): collective, with its
  // own agreement points, so a bad file fails on every rank and no rank waits in a broadcast.
  load_geometry(ctx_, model_, domain);
  std::unique_ptr<Engine> engine;
  // One rank may fail alone here (device memory): agree before the collective halo set-up.
  comm::agree(ctx_, [&] { engine = make_engine(run.backend, domain, h_coefficients(model_)); });
  auto ghosts = make_halo_ghosts(*decomp_, run.transport, engine->layout());
  stepper_ = std::make_unique<Stepper>(model_, domain, std::move(engine), std::move(ghosts));
  probes_ = std::make_unique<ProbeLog>(ctx_, run.output_dir / "probes.h5", model_, run.provenance);
  fields_ = std::make_unique<FieldWriter>(ctx_, run.output_dir, model_, *decomp_, run.provenance,
                                         run.deck.get_bool("output.openpmd"));
  materials_ = std::make_unique<MaterialWriter>(ctx_, run.output_dir, model_, domain, run.provenance,
                                                run.deck.get_bool("output.materials"),
                                                stepper_->release_material_index());
  dfts_ = std::make_unique<DftWriter>(ctx_, run.output_dir, model_, run.provenance);
  fluxes_ = std::make_unique<FluxLog>(ctx_, run.output_dir / "flux.h5", model_, run.provenance, *stepper_);

  const auto& dims = decomp_->dims();
  log::info("fdtd: {}x{}x{} cells of {:g} x {:g} x {:g} m, dt = {:.6g} s (courant {:.4f}), {} material(s), {} "
            "shape(s), {} source(s), {} probe(s), {} plane wave(s), {} dft monitor(s), {} flux plane(s)",
            model_.cells[0], model_.cells[1], model_.cells[2], model_.cell_size[0], model_.cell_size[1],
            model_.cell_size[2], model_.dt, model_.dt / courant_limit(model_.cell_size), model_.materials.size(),
            model_.shapes.size(), model_.sources.size(), model_.probes.size(), model_.plane_waves.size(),
            model_.dfts.size(), model_.fluxes.size());
  log::info("fdtd: faces x {}/{}, y {}/{}, z {}/{}; ranks {}x{}x{}, rank 0 holds {}x{}x{} cells", face_name(model_.faces[0][0]),
            face_name(model_.faces[0][1]), face_name(model_.faces[1][0]), face_name(model_.faces[1][1]),
            face_name(model_.faces[2][0]), face_name(model_.faces[2][1]), dims[0], dims[1], dims[2], domain.n[0],
            domain.n[1], domain.n[2]);
  log::info("fdtd: rank 0's sweep: {}", stepper_->sweep_reason());
  // Dispersive materials and the TFSF box: what they cost and where they act.
  std::size_t dispersive = 0;
  for (const MaterialSpec& mat : model_.materials) dispersive += mat.dispersive() ? 1 : 0;
  if (dispersive > 0) {
    const Box b = dispersive_bounds(model_);
    log::info("fdtd: {} dispersive material(s); J/P arrays over cells [{}, {}) x [{}, {}) x [{}, {}), {} bytes per cell",
              dispersive, b.lo[0], b.hi[0], b.lo[1], b.hi[1], b.lo[2], b.hi[2], dispersion_bytes_per_cell(model_));
  }
  for (const TfsfSpec& t : model_.tfsf)
    log::info("fdtd: tfsf box, node planes [{}, {}] x [{}, {}] x [{}, {}], incident {} along {}{}", t.box.lo[0],
              t.box.hi[0], t.box.lo[1], t.box.hi[1], t.box.lo[2], t.box.hi[2], kComponentName[t.component],
              t.dir > 0 ? "+" : "-", char('x' + t.axis));
}

void FdtdSolver::initialize() {
  probes_->start();
  materials_->write(stepper_->node_overrides());
}

void FdtdSolver::restart(io::CheckpointReader& checkpoint) {
  read_state(checkpoint, *stepper_);
  materials_->write(stepper_->node_overrides());  // the same geometry: rewritten, in case this run writes elsewhere
  probes_->resume(stepper_->steps());
  fields_->resume(stepper_->steps());
}

void FdtdSolver::advance() {
  stepper_->step();
  if (stepper_->pending_rows() >= kFlushRows) probes_->collect(*stepper_);
}

void FdtdSolver::write_output() {
  fields_->write(*stepper_);
  write_spectra();
}

void FdtdSolver::write_spectra() {
  // At the end of a run whose last step was also an output step, the files are current.
  if (spectra_step_ == stepper_->steps()) return;
  dfts_->write(*stepper_);
  fluxes_->write(*stepper_);
  spectra_step_ = stepper_->steps();
}

void FdtdSolver::diagnostics() {
  const Stepper::Energy mine = stepper_->local_energy();
  double e[2] = {mine.electric, mine.magnetic};
  comm::allreduce_inplace(ctx_, std::span<double>(e, 2), comm::Op::sum);
  log::info("step {}: energy {:.9e} J (electric {:.4e}, magnetic {:.4e})", stepper_->steps(), e[0] + e[1], e[0], e[1]);
  probes_->append_energy(stepper_->steps(), stepper_->time(), e[0], e[1]);
  probes_->collect(*stepper_);
}

void FdtdSolver::write_checkpoint(io::CheckpointWriter& checkpoint) {
  probes_->publish(*stepper_);  // the file then holds every row up to this step
  write_state(checkpoint, *stepper_);
}

void FdtdSolver::summary() {
  probes_->publish(*stepper_);
  write_spectra();
}

}  // namespace tessera::fdtd
