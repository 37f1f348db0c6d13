// NbodySolver<T>: the state of this rank's bodies, the time step, and the run loop's hooks
// (output, diagnostics, checkpoints). See docs/nbody.md for the physics and the file layouts.
#include "solvers/nbody/nbody_solver.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/deck/deck.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/profile.hpp"
#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "io/published.hpp"
#include "io/series_log.hpp"
#include "comm/host_threads.hpp"
#include "solvers/nbody/code_units.hpp"
#include "solvers/nbody/common_mass.hpp"
#include "solvers/nbody/diagnostics.hpp"
#include "solvers/nbody/backend.hpp"
#include "solvers/nbody/initial_conditions.hpp"
#include "solvers/nbody/params.hpp"
#include "solvers/nbody/ring_forces.hpp"
#include "solvers/nbody/openpmd_output.hpp"
#include "solvers/nbody/snapshot.hpp"

namespace tessera::nbody {
namespace {

// Checkpoint datasets (global layouts: restart on any rank count).
constexpr const char* kPosMass = "nbody/pos_mass";  // 4 N values: x, y, z, m per body
constexpr const char* kVel = "nbody/vel";           // 4 N: vx, vy, vz, 0
constexpr const char* kAcc = "nbody/acc";           // 4 N: ax, ay, az, phi (for a bitwise KDK restart)
constexpr const char* kIds = "nbody/ids";           // N
constexpr const char* kScalars = "nbody/scalars";   // start time, initial energy, snapshots written
constexpr std::int64_t kScalarCount = 3;

template <class T>
std::span<const T> flat(const std::vector<Vec4<T>>& v) {
  return {reinterpret_cast<const T*>(v.data()), v.size() * 4};
}

template <class T>
void unflatten(const std::vector<T>& in, std::vector<Vec4<T>>& out) {
  out.resize(in.size() / 4);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Vec4<T>{in[4 * i], in[4 * i + 1], in[4 * i + 2], in[4 * i + 3]};
}

template <class T>
class NbodySolver final : public Solver {
 public:
  NbodySolver(RunContext& run, Params params)
      : ctx_(run.ctx), backend_(run.backend), transport_(run.transport), out_dir_(run.output_dir),
        provenance_(run.provenance), p_(std::move(params)), openpmd_(run.deck.get_bool("output.openpmd")) {}

  // ic = "file": the snapshot is read (and checked) here, before the run touches its output
  // directory; initialize() takes the bodies. A restart does not read it.
  void read_inputs() override {
    if (p_.ic != InitialConditions::file || ic_snapshot_) return;
    comm::agree(ctx_, [&] {
      SnapshotData<T> snap = read_snapshot<T>(ctx_, p_.file.path, p_.file.part_type, p_.where_file);
      if (p_.n && *p_.n != snap.n_total)
        throw InputError(fmt::format("{}: nbody.n = {}, but snapshot {} holds {} bodies", p_.where_n, *p_.n,
                                     p_.file.path, snap.n_total));
      ic_snapshot_ = std::move(snap);
    });
  }

  void initialize() override {
    HostBodies<T> bodies;
    std::int64_t n = 0;
    if (p_.ic == InitialConditions::file) read_inputs();
    comm::agree(ctx_, [&] {
      if (p_.ic == InitialConditions::file) {
        n = ic_snapshot_->n_total;
        t0_ = ic_snapshot_->time;
        bodies = std::move(ic_snapshot_->bodies);
        ic_snapshot_.reset();
      } else {
        n = *p_.n;
        generate_bodies(ctx_, p_, n, block_range(n, ctx_.size(), ctx_.rank()), bodies);
      }
    });
    setup(n);
    host_ = std::move(bodies);
    upload_bodies(ctx_, *engine_, host_);
    ring_->run(*engine_, BlockPass<T>{.potential = true});
    potential_fresh_ = true;
    host_fresh_ = false;
    refresh_host();
    initial_energy_ = measure(ctx_, host_.pos_mass, host_.vel, host_.acc).total();
    log::info("nbody: {} bodies, {} rank(s), {}, {} precision, {} integrator, dt = {:g}, eps = {:g}, E0 = {:.10g}", n_,
              ctx_.size(), engine_->describe(), sizeof(T) == 8 ? "double" : "single",
              p_.integrator == Integrator::leapfrog ? "leapfrog" : "euler", p_.dt, p_.eps, initial_energy_);
    log_units();
  }

  void restart(io::CheckpointReader& in) override {
    std::int64_t n = 0;
    comm::agree(ctx_, [&] {
      const auto extent = io::dataset_extent(in.root(), kIds);
      n = extent.at(0);
      const io::ElementType type = io::dataset_element_type(in.root(), kPosMass);
      if (type != io::element_type_of<T>())
        throw InputError(fmt::format("{}: checkpoint {} holds {} bodies, but the deck asks for precision = \"{}\"",
                                     p_.where_precision, in.path().string(), io::to_string(type),
                                     sizeof(T) == 8 ? "double" : "single"));
      if (p_.n && *p_.n != n)
        throw InputError(fmt::format("{}: nbody.n = {}, but checkpoint {} holds {} bodies", p_.where_n, *p_.n,
                                     in.path().string(), n));
    });
    setup(n);
    const Range r = range_;
    unflatten(in.read_1d_checked<T>(kPosMass, 4 * r.begin, 4 * r.count), host_.pos_mass);
    unflatten(in.read_1d_checked<T>(kVel, 4 * r.begin, 4 * r.count), host_.vel);
    unflatten(in.read_1d_checked<T>(kAcc, 4 * r.begin, 4 * r.count), host_.acc);
    host_.ids = in.read_1d_checked<std::uint64_t>(kIds, r.begin, r.count);
    std::vector<double> scalars = in.read_1d_checked<double>(kScalars, 0, ctx_.is_root() ? kScalarCount : 0);
    scalars.resize(kScalarCount);
    comm::broadcast(ctx_, std::span<double>(scalars));
    t0_ = scalars[0];
    initial_energy_ = scalars[1];
    snapshots_ = static_cast<std::int64_t>(scalars[2]);
    step_ = in.manifest().step;
    restart_step_ = step_;
    upload_bodies(ctx_, *engine_, host_);
    host_fresh_ = true;
    potential_fresh_ = false;
    restarted_ = true;
    log::info("nbody: {} bodies, {} rank(s), {}, restarted at step {}", n_, ctx_.size(), engine_->describe(), step_);
    log_units();
  }

  void advance() override {
    const bool potential = p_.diagnostics_every > 0 && (step_ + 1) % p_.diagnostics_every == 0;
    const T dt = static_cast<T>(p_.dt);
    if (p_.integrator == Integrator::leapfrog) {
      const T half = dt * T(0.5);
      {
        TESSERA_PROFILE_SYNC("nbody.kick_drift", engine_->stream());
        engine_->kick_drift(half, dt);  // v(n+1/2), x(n+1)
      }
      ring_->run(*engine_, BlockPass<T>{.potential = potential, .kick_dt = half});  // a(n+1), v(n+1)
    } else {
      {
        TESSERA_PROFILE_SYNC("nbody.kick_drift", engine_->stream());
        engine_->kick_drift(dt, dt);  // the seeds' scheme: v += a dt; x += v dt
      }
      ring_->run(*engine_, BlockPass<T>{.potential = potential});
    }
    ++step_;
    host_fresh_ = false;
    potential_fresh_ = potential;
  }

  std::int64_t step() const override { return step_; }
  double time() const override { return t0_ + static_cast<double>(step_) * p_.dt; }

  void write_output() override {
    refresh_host();
    SnapshotInfo info;
    info.time = time();
    info.G = p_.G;
    info.eps = p_.eps;
    info.units = p_.units;
    info.deck_text = p_.deck_text;
    info.provenance = provenance_;
    const auto path = out_dir_ / snapshot_name(snapshots_);
    write_snapshot(ctx_, path, info, host_, range_, n_);
    ++snapshots_;
    io::log_published(path);
    if (openpmd_) write_openpmd_bodies(ctx_, out_dir_ / "openpmd", {step_, time(), p_.dt, p_.units}, host_, range_, n_);
  }

  void diagnostics() override {
    refresh_host();
    const std::vector<Vec4<T>>* phi = &host_.acc;
    if (!potential_fresh_) {
      // A step that did not compute potentials: one extra pass into the scratch buffer.
      ring_->run(*engine_, BlockPass<T>{.potential = true, .scratch = true});
      engine_->download_scratch(scratch_);
      phi = &scratch_;
    }
    const Measurement m = measure(ctx_, host_.pos_mass, host_.vel, *phi);
    last_error_ = relative_energy_error(m.total(), initial_energy_);
    const auto norm = [](const std::array<double, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
    log::info("nbody step {} t = {:.6g}: E = {:.10g} (K {:.6g}, W {:.6g}), dE/|E0| = {:.3e}, |P| = {:.3e}, |L| = {:.6g}",
              step_, time(), m.total(), m.kinetic, m.potential, last_error_, norm(m.momentum),
              norm(m.angular_momentum));
    append_diagnostics(diagnostics_row(step_, time(), m, initial_energy_));
  }

  void write_checkpoint(io::CheckpointWriter& out) override {
    if (diagnostics_log_) diagnostics_log_->publish();  // the file then holds every row up to this step
    refresh_host();
    const Range r = range_;
    const CodeUnits u = code_units(p_.units);
    io::write_units(out.write_1d_checked<T>(kPosMass, flat(host_.pos_mass), 4 * r.begin, 4 * n_),
                    fmt::format("{0}, {0}, {0}, {1}", u.length, u.mass));
    io::write_units(out.write_1d_checked<T>(kVel, flat(host_.vel), 4 * r.begin, 4 * n_),
                    fmt::format("{0}, {0}, {0}, 1", u.velocity));
    io::write_units(out.write_1d_checked<T>(kAcc, flat(host_.acc), 4 * r.begin, 4 * n_),
                    fmt::format("{0}, {0}, {0}, {1}", u.acceleration, u.potential));
    io::write_units(out.write_1d_checked<std::uint64_t>(kIds, host_.ids, r.begin, n_), io::kDimensionless);
    const std::vector<double> scalars{t0_, initial_energy_, static_cast<double>(snapshots_)};
    const std::span<const double> mine = ctx_.is_root() ? std::span<const double>(scalars) : std::span<const double>();
    io::write_units(out.write_1d_checked<double>(kScalars, mine, 0, kScalarCount),
                    fmt::format("{}, {}, 1", u.time, u.energy));
  }

  double work_per_step() const override { return static_cast<double>(n_) * static_cast<double>(n_); }
  std::string work_unit() const override { return "interactions"; }

  void summary() override {
    if (diagnostics_log_) {
      diagnostics_log_->publish();
      io::log_published(diagnostics_log_->file());
    }
    if (measured_)
      log::info("nbody: {} bodies after {} steps (t = {:.6g}); last relative energy error {:.3e}", n_, step_, time(),
                last_error_);
  }

 private:
  void setup(std::int64_t n) {
    n_ = n;
    range_ = block_range(n, ctx_.size(), ctx_.rank());
    EngineOptions o;
    o.G = p_.G;
    o.eps = p_.eps;
    o.offset = range_.begin;
    o.cpu_threads = comm::cpu_threads_per_rank(ctx_);
    o.kernel = p_.kernel;
    comm::agree(ctx_, [&] {
      engine_ = backend_ == Backend::cuda
                    ? make_cuda_engine<T>(range_.count, block_range(n, ctx_.size(), 0).count, o)
                    : make_cpu_engine<T>(range_.count, o);
    });
    comm::agree(ctx_, [&] { ring_ = std::make_unique<RingForces<T>>(ctx_, transport_, n); });
  }

  // The snapshots' unit system ([nbody.units], completed so that G is the deck's G).
  void log_units() const {
    const UnitParams& u = p_.units;
    log::info("nbody: snapshot units: length {:.6g} cm, mass {:.6g} g, velocity {:.6g} cm/s, time {:.6g} s (G = {:g})",
              u.length_in_cm, u.mass_in_g, u.velocity_in_cm_per_s, u.time_in_s, p_.G);
  }

  void refresh_host() {
    if (host_fresh_) return;
    engine_->download(host_);
    host_fresh_ = true;
  }

  // The first row prepares the file: a fresh run starts a new one; a restart keeps the
  // existing file, the rows an interrupted run wrote after the checkpoint until rewritten (a new file
  // when there is none). Rows then go through an io::SeriesLog (published in batches).
  void append_diagnostics(const std::vector<double>& row) {
    if (!diagnostics_log_) {
      const auto path = out_dir_ / "diagnostics.h5";
      bool exists = false;
      if (restarted_) {
        exists = ctx_.is_root() && std::filesystem::exists(path);
        exists = comm::broadcast_value(ctx_, exists ? 1 : 0) == 1;
      }
      // A changed copy replaces the file only once verified (io/output_file.hpp).
      io::OutputFile file = exists ? io::OutputFile::modify(ctx_, path) : io::OutputFile(ctx_, path);
      {
        io::write_provenance(file.root(), provenance_);
        io::TimeSeries series =
            io::TimeSeries::open_or_create(file.root(), "nbody", diagnostics_columns(code_units(p_.units)));
      }
      file.commit();
      diagnostics_log_.emplace(ctx_, path);
      // Rows after the checkpoint stay until rewritten: a failed restart loses none.
      if (restarted_) diagnostics_log_->resume("nbody", "step", static_cast<double>(restart_step_));
    }
    diagnostics_log_->add_row("nbody", row);
    diagnostics_log_->publish_if_due();
    measured_ = true;
  }

  comm::Context& ctx_;
  Backend backend_;
  comm::Transport& transport_;
  std::filesystem::path out_dir_;
  io::Provenance provenance_;
  Params p_;
  bool openpmd_ = false;  // [output] openpmd: each snapshot also as openPMD (openpmd_output.hpp)

  std::int64_t n_ = 0;
  Range range_;
  std::unique_ptr<Engine<T>> engine_;
  std::unique_ptr<RingForces<T>> ring_;
  HostBodies<T> host_;        // mirror of the engine's state when host_fresh_ (ids live only here)
  std::vector<Vec4<T>> scratch_;
  bool host_fresh_ = false;
  bool potential_fresh_ = false;  // the last force pass also computed potentials (acc.w)

  std::int64_t step_ = 0;
  double t0_ = 0;  // time of step 0 (a snapshot's Time for ic = file)
  double initial_energy_ = 0;
  double last_error_ = 0;
  std::int64_t snapshots_ = 0;
  std::int64_t restart_step_ = 0;
  bool restarted_ = false, measured_ = false;
  std::optional<io::SeriesLog> diagnostics_log_;  // from the first diagnostics on
  std::optional<SnapshotData<T>> ic_snapshot_;     // read_inputs() until initialize()
};

}  // namespace

std::unique_ptr<Solver> make_nbody_solver(RunContext& run) {
  Params p = params_from_deck(run.deck);
  p.deck_text = run.deck.to_toml();  // snapshots record the resolved deck
  if (p.double_precision) return std::make_unique<NbodySolver<double>>(run, std::move(p));
  return std::make_unique<NbodySolver<float>>(run, std::move(p));
}

}  // namespace tessera::nbody
