#include "solvers/spmv/spmv_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "comm/host_threads.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/agree.hpp"
#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "io/series_log.hpp"
#include "io/published.hpp"
#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/cg.hpp"
#include "solvers/spmv/distributed_spmv.hpp"
#include "solvers/spmv/matrix_io.hpp"
#include "solvers/spmv/output.hpp"
#include "solvers/spmv/params.hpp"
#include "solvers/spmv/stats.hpp"

namespace tessera::spmv {
namespace {

constexpr const char* kGroup = "spmv";
constexpr std::int64_t kScalarCount = 5;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T>
class SpmvSolver final : public Solver {
 public:
  SpmvSolver(RunContext& run, Params params)
      : ctx_(run.ctx), backend_(run.backend), out_dir_(run.output_dir), provenance_(run.provenance),
        p_(std::move(params)) {
    if (p_.variant != Variant::automatic)  // a named variant the backend lacks stops before the matrix is read
      comm::agree(ctx_, [&] { engine_ = make_engine<T>(backend_, engine_options()); });
    const SizeCheck check = [&](std::int64_t rows, std::int64_t, std::int64_t nnz, const std::string& where) {
      const double r = static_cast<double>(rows), n = static_cast<double>(nnz);
      comm::require_memory(ctx_, false, [=](double ranks) { return matrix_memory(r, n, sizeof(T), ranks); }, where);
    };
    LoadedMatrix loaded = load_matrix(ctx_, p_.matrix, check);
    if (p_.mode == Mode::cg)
      io::agree_input(ctx_, [&] {
        if (loaded.part.size() != loaded.cols)
          throw InputError(fmt::format("{}: {} is {} x {}; conjugate gradients (spmv.mode = \"cg\") needs a square "
                                       "matrix",
                                       p_.where_mode, loaded.description, loaded.part.size(), loaded.cols));
      });
    a_ = make_distributed<T>(ctx_, loaded.rows, loaded.part, loaded.cols, loaded.description);
    loaded = {};
    stats_ = matrix_stats(ctx_, a_, p_.hybrid_rule);
    if (p_.variant == Variant::automatic) {
      p_.variant = choose_variant(p_.variant, backend_, stats_);  // the same on every rank
      comm::agree(ctx_, [&] { engine_ = make_engine<T>(backend_, engine_options()); });
    }
    spmv_ = std::make_unique<DistributedSpmv<T>>(ctx_, run.transport, *engine_, a_);
    const Memory mem = engine_->memory();
    if (p_.mode == Mode::multiply) {
      x_host_ = make_vector<T>(ctx_, p_.x, a_.my_cols, a_.cols, "x");
      x_ = Array<T>(mem, x_host_.size());
      x_.upload(x_host_);
      y_ = Array<T>(mem, static_cast<std::size_t>(a_.my_rows.count));
      engine_->fill(y_.data(), std::numeric_limits<T>::quiet_NaN(), a_.my_rows.count);  // unwritten entries show
    } else {
      cg_ = std::make_unique<Cg<T>>(ctx_, *spmv_, p_.cg, diagonal(a_), a_.description);
      make_rhs();
    }
  }

  EngineOptions engine_options() const {
    EngineOptions o;
    o.variant = p_.variant;
    o.hybrid_rule = p_.hybrid_rule;
    o.threads = comm::cpu_threads_per_rank(ctx_);
    return o;
  }

  void initialize() override {
    log_setup();
    if (p_.write_matrix)
      io::log_published(write_matrix_file(ctx_, out_dir_, a_, stats_, provenance_));
    if (cg_) {
      cg_->start(b_);
      const CgStatus& s = cg_->status();
      log::info("spmv cg: ||b|| = {:.6e}, tolerance {:.3g} relative{}", cg_->b_norm(), p_.cg.tolerance,
                s.converged ? ": already converged (x = 0)" : "");
      add_history(s);
    }
  }

  void restart(io::CheckpointReader& in) override {
    log_setup();
    const std::uint64_t checksum = matrix_checksum(ctx_, a_);
    {
      const io::Group g = in.root().open_group(kGroup);
      auto refuse_unless = [&](bool same, std::string_view what, const std::string& then, const std::string& now) {
        if (!same)
          throw InputError(fmt::format("{} was written for {} {}, but this deck gives {}: restart with the same "
                                       "matrix and mode",
                                       in.path().string(), what, then, now));
      };
      const auto mode = io::read_attribute<std::string>(g, "mode");
      refuse_unless(mode == to_string(p_.mode), "mode", mode, std::string(to_string(p_.mode)));
      const auto precision = io::read_attribute<std::string>(g, "precision");
      refuse_unless(precision == to_string(p_.precision), "precision", precision, std::string(to_string(p_.precision)));
      const auto rows = io::read_attribute<std::int64_t>(g, "rows"), cols = io::read_attribute<std::int64_t>(g, "columns");
      const auto nnz = io::read_attribute<std::int64_t>(g, "nonzeros");
      refuse_unless(rows == a_.rows && cols == a_.cols && nnz == a_.nnz, "a matrix of",
                    fmt::format("{} x {} with {} nonzeros", rows, cols, nnz),
                    fmt::format("{} x {} with {} nonzeros", a_.rows, a_.cols, a_.nnz));
      refuse_unless(io::read_attribute<std::uint64_t>(g, "matrix_checksum") == checksum, "the matrix",
                    io::read_attribute<std::string>(g, "matrix"), "different entries (" + a_.description + ")");
    }
    step_ = in.manifest().step;
    restart_step_ = step_;
    restarted_ = true;
    if (cg_) {
      const Range r = a_.my_rows;
      CgState<T> s;
      s.x = in.read_1d_checked<T>("spmv/x", r.begin, r.count);
      s.r = in.read_1d_checked<T>("spmv/r", r.begin, r.count);
      s.p = in.read_1d_checked<T>("spmv/p", r.begin, r.count);
      std::vector<double> scalars = in.read_1d_checked<double>("spmv/scalars", 0, ctx_.is_root() ? kScalarCount : 0);
      scalars.resize(kScalarCount);
      comm::broadcast(ctx_, std::span<double>(scalars));
      std::copy(scalars.begin(), scalars.end(), s.scalars.begin());
      cg_->load(s, step_);
      log::info("spmv cg: continuing at iteration {}, relative residual {:.6e}", step_,
                cg_->status().relative_residual);
    }
  }

  void advance() override {
    if (cg_) {
      const CgStatus& s = cg_->iterate();
      ++step_;
      add_history(s);
      return;
    }
    times_.push_back(spmv_->multiply(x_.data(), y_.data()));
    has_y_ = true;
    verified_ = false;
    ++step_;
  }

  std::int64_t step() const override { return step_; }
  double time() const override { return static_cast<double>(step_); }
  bool finished() const override { return cg_ && cg_->status().converged; }

  void write_output() override {
    if (!cg_ && !has_y_) {
      if (step_ == 0) return;  // nothing multiplied yet (an output cadence at step 0)
      spmv_->multiply(x_.data(), y_.data());  // restarted at the last step: y is one product away
      has_y_ = true;
    }
    const Range rows = a_.my_rows;
    std::optional<double> true_residual, error;
    if (cg_) {
      true_residual = true_relative_residual();
      if (p_.rhs == Rhs::manufactured) error = error_to_exact();
    }
    io::OutputFile file(ctx_, out_dir_ / kResultFile);
    {
      const io::Group& root = file.root();
      if (cg_) {
        // The matrix and vectors are pure numbers: units "1" (io/units.hpp).
        io::write_units(io::write_1d_checked<T>(root, "x", cg_->solution(), rows.begin, a_.rows), io::kDimensionless);
        io::write_units(io::write_1d_checked<T>(root, "b", b_, rows.begin, a_.rows), io::kDimensionless);
        if (p_.rhs == Rhs::manufactured)
          io::write_units(io::write_1d_checked<T>(root, "x_exact", x_exact_, rows.begin, a_.rows), io::kDimensionless);
        const CgStatus& s = cg_->status();
        io::write_attribute(root, "iterations", s.iteration);
        io::write_attribute(root, "converged", static_cast<std::int32_t>(s.converged ? 1 : 0));
        io::write_attribute(root, "relative_residual", s.relative_residual);
        io::write_attribute(root, "true_relative_residual", *true_residual);
        io::write_attribute(root, "tolerance", p_.cg.tolerance);
        io::write_attribute(root, "preconditioner", p_.cg.jacobi ? "jacobi" : "none");
        io::write_attribute(root, "rhs", p_.describe_rhs());
        if (error) io::write_attribute(root, "relative_error_to_exact", *error);
      } else {
        io::write_units(io::write_1d_checked<T>(root, "x", x_host_, a_.my_cols.begin, a_.cols), io::kDimensionless);
        io::write_units(io::write_1d_checked<T>(root, "y", y_.download(), rows.begin, a_.rows), io::kDimensionless);
        io::write_attribute(root, "x_source", p_.x.describe());
      }
      write_stats_attributes(root, stats_);
      io::write_attribute(root, "mode", std::string(to_string(p_.mode)));
      io::write_attribute(root, "precision", std::string(to_string(p_.precision)));
      io::write_attribute(root, "variant", std::string(to_string(p_.variant)));
      io::write_attribute(root, "matrix", a_.description);
      io::write_attribute(root, "backend", std::string(tessera::to_string(backend_)));
      io::write_attribute(root, "steps", step_);
      io::write_attribute(root, "seconds_per_multiply", median_seconds());
      io::write_provenance(root, provenance_);
    }
    io::log_published(file.commit());
  }

  void diagnostics() override {
    if (cg_) {
      const CgStatus& s = cg_->status();
      log::info("spmv cg iteration {}: relative residual {:.6e} (recurrence), {:.6e} (b - A x)", s.iteration,
                s.relative_residual, true_relative_residual());
      return;
    }
    if (!has_y_) return;
    const double norm = std::sqrt(comm::allreduce(ctx_, engine_->dot(y_.data(), y_.data(), a_.my_rows.count)));
    log::info("spmv step {}: ||y|| = {:.12e}", step_, norm);
    if (p_.verify) verify();
  }

  void write_checkpoint(io::CheckpointWriter& out) override {
    if (history_) history_->publish();  // the file then holds every row up to this step
    const std::uint64_t checksum = matrix_checksum(ctx_, a_);
    {
      const io::Group g = out.root().create_group(kGroup);
      io::write_attribute(g, "mode", std::string(to_string(p_.mode)));
      io::write_attribute(g, "precision", std::string(to_string(p_.precision)));
      io::write_attribute(g, "rows", a_.rows);
      io::write_attribute(g, "columns", a_.cols);
      io::write_attribute(g, "nonzeros", a_.nnz);
      io::write_attribute(g, "matrix", a_.description);
      io::write_attribute(g, "matrix_checksum", checksum);
    }
    if (!cg_) return;  // a multiply's state is the matrix and x, both made again from the deck
    const CgState<T> s = cg_->save();
    const Range r = a_.my_rows;
    io::write_units(out.write_1d_checked<T>("spmv/x", s.x, r.begin, a_.rows), io::kDimensionless);
    io::write_units(out.write_1d_checked<T>("spmv/r", s.r, r.begin, a_.rows), io::kDimensionless);
    io::write_units(out.write_1d_checked<T>("spmv/p", s.p, r.begin, a_.rows), io::kDimensionless);
    io::write_units(out.write_1d_checked<double>("spmv/scalars",
                                                 ctx_.is_root() ? std::span<const double>(s.scalars)
                                                                : std::span<const double>(),
                                                 0, kScalarCount),
                    io::kDimensionless);
  }

  double work_per_step() const override { return 2.0 * static_cast<double>(a_.nnz); }
  std::string work_unit() const override { return "flop"; }
  bool has_time() const override { return false; }  // a step is one multiply or CG iteration
  // A multiply run reports its median multiply's GFLOP/s in summary(); a CG run reports none.
  bool reports_rate() const override { return !cg_; }

  void summary() override {
    if (history_) {
      history_->publish();
      io::log_published(history_->file());
    }
    if (cg_) {
      const CgStatus& s = cg_->status();
      const double true_residual = true_relative_residual();
      const std::string error =
          p_.rhs == Rhs::manufactured ? fmt::format(", relative error to x* {:.3e}", error_to_exact()) : std::string();
      if (s.converged) {
        log::info("spmv cg: converged in {} iterations: relative residual {:.3e} (recurrence), {:.3e} (b - A x){}",
                  s.iteration, s.relative_residual, true_residual, error);
        if (true_residual > 10 * p_.cg.tolerance)
          log::warn("spmv cg: the true residual b - A x, {:.3e}, stays above the tolerance {:.3g}: the recurrence's "
                    "residual drifted from it{}",
                    true_residual, p_.cg.tolerance,
                    p_.precision == Precision::float32 ? " (float32 holds about 1e-7: use precision \"float64\")" : "");
      } else
        log::warn("spmv cg: not converged after {} iterations ([run] steps): relative residual {:.3e}, tolerance {:.3g}{}",
                  s.iteration, s.relative_residual, p_.cg.tolerance, error);
      return;
    }
    if (p_.verify && has_y_ && !verified_) verify();
    if (times_.empty()) return;
    // Medians, like the total: the first multiply also sets up the transport's connections
    // (NCCL's are made lazily), which a mean would spread over all of them.
    std::vector<double> totals, pack, local, wait, ghost;
    for (const MultiplyTimes& t : times_) {
      totals.push_back(t.total());
      pack.push_back(t.pack);
      local.push_back(t.local);
      wait.push_back(t.wait);
      ghost.push_back(t.ghost);
    }
    const double med = comm::allreduce(ctx_, median(totals), comm::Op::max);
    double phases[4] = {median(pack), median(local), median(wait), median(ghost)};
    comm::allreduce_inplace(ctx_, std::span<double>(phases, 4), comm::Op::max);
    log::info("spmv: {} multiplies, median {:.3f} ms = {:.3f} GFLOP/s ({} ranks); phases (median, slowest rank): pack "
              "{:.3f} ms, local block {:.3f} ms, ghost wait {:.3f} ms, ghost block {:.3f} ms",
              times_.size(), med * 1e3, med > 0 ? 2.0 * static_cast<double>(a_.nnz) / med / 1e9 : 0.0, ctx_.size(),
              phases[0] * 1e3, phases[1] * 1e3, phases[2] * 1e3, phases[3] * 1e3);
  }

 private:
  void log_setup() {
    log::info("spmv: {}, {} ({}), {} rank(s), {}", a_.description, to_string(p_.mode), to_string(p_.precision),
              ctx_.size(), engine_->describe());
    log::info("spmv matrix: {}", stats_.describe());
    if (cg_)
      log::info("spmv cg: b = {}, preconditioner {}", p_.describe_rhs(), p_.cg.jacobi ? "jacobi" : "none");
    else
      log::info("spmv multiply: x = {}", p_.x.describe());
  }

  void make_rhs() {
    const Range r = a_.my_rows;
    if (p_.rhs != Rhs::manufactured) {
      b_ = make_vector<T>(ctx_, p_.b, r, a_.rows, "b");
      return;
    }
    x_exact_ = make_vector<T>(ctx_, p_.solution, r, a_.rows, "x*");
    b_ = product(x_exact_);
  }

  // A v for this rank's part of v (host), on the host.
  std::vector<T> product(const std::vector<T>& v) {
    const Memory mem = engine_->memory();
    Array<T> in(mem, v.size()), out(mem, static_cast<std::size_t>(a_.my_rows.count));
    in.upload(v);
    spmv_->multiply(in.data(), out.data());
    return out.download();
  }

  // ||b - A x|| / ||b|| for the current x (collective).
  double true_relative_residual() {
    const std::vector<T> ax = product(cg_->solution());
    double sums[2] = {0, 0};
    for (std::size_t i = 0; i < ax.size(); ++i) {
      const double d = static_cast<double>(b_[i]) - static_cast<double>(ax[i]);
      sums[0] += d * d;
      sums[1] += static_cast<double>(b_[i]) * b_[i];
    }
    comm::allreduce_inplace(ctx_, std::span<double>(sums, 2), comm::Op::sum);
    return sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
  }

  // ||x - x*|| / ||x*|| (collective).
  double error_to_exact() {
    const std::vector<T> x = cg_->solution();
    double sums[2] = {0, 0};
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = static_cast<double>(x[i]) - static_cast<double>(x_exact_[i]);
      sums[0] += d * d;
      sums[1] += static_cast<double>(x_exact_[i]) * x_exact_[i];
    }
    comm::allreduce_inplace(ctx_, std::span<double>(sums, 2), comm::Op::sum);
    return sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
  }

  // Compares y with a float64 product of the same rows (this rank's x and the ghosts the last
  // multiply received): within the rounding bound 2 (len + 2) eps sum |a x| per row.
  void verify() {
    const std::vector<T> y = y_.download();
    const std::vector<T> ghosts = spmv_->ghost_values();
    const double eps = std::numeric_limits<T>::epsilon();
    std::int64_t bad = 0, first = -1;
    double worst = 0, got = 0, want = 0;
    for (std::int64_t r = 0; r < a_.my_rows.count; ++r) {
      double sum = 0, magnitude = 0;
      auto add = [&](const CsrBlock<T>& b, const std::vector<T>& x) {
        for (std::int64_t q = b.row_ptr[r]; q < b.row_ptr[r + 1]; ++q) {
          const double t = static_cast<double>(b.val[q]) * static_cast<double>(x[b.col[q]]);
          sum += t;
          magnitude += std::fabs(t);
        }
      };
      add(a_.local, x_host_);
      add(a_.ghost, ghosts);
      const double len = static_cast<double>(a_.local.row_ptr[r + 1] - a_.local.row_ptr[r] + a_.ghost.row_ptr[r + 1] -
                                             a_.ghost.row_ptr[r]);
      const double bound = 2.0 * (len + 2.0) * eps * magnitude + std::numeric_limits<double>::denorm_min();
      const double diff = std::fabs(static_cast<double>(y[r]) - sum);
      worst = std::max(worst, diff / bound);
      if (!(diff <= bound)) {
        if (bad++ == 0) {
          first = a_.my_rows.begin + r;
          got = y[r];
          want = sum;
        }
      }
    }
    comm::all_ok(ctx_, bad == 0,
                 fmt::format("spmv verification failed on rank {}: {} of {} rows of y differ from a float64 CSR "
                             "product beyond rounding; the first, row {}: {} instead of {}",
                             ctx_.rank(), bad, a_.my_rows.count, first, got, want));
    worst = comm::allreduce(ctx_, worst, comm::Op::max);
    log::info("spmv verified: the {} rows of y agree with a float64 CSR product (largest difference {:.3g} of the "
              "rounding bound)",
              a_.rows, worst);
    verified_ = true;
  }

  // The first row prepares the file: a fresh run starts a new one; a restart keeps the rows
  // up to its checkpoint. Rows then go through an io::SeriesLog (published in batches).
  void add_history(const CgStatus& s) {
    if (!history_) {
      const auto path = out_dir_ / kHistoryFile;
      bool exists = false;
      if (restarted_) {
        exists = ctx_.is_root() && std::filesystem::exists(path);
        exists = comm::broadcast_value(ctx_, exists ? 1 : 0) == 1;
      }
      io::OutputFile file = exists ? io::OutputFile::modify(ctx_, path) : io::OutputFile(ctx_, path);
      {
        io::write_provenance(file.root(), provenance_);
        io::TimeSeries series = io::TimeSeries::open_or_create(
            file.root(), "cg",
            {{"step", "1"}, {"residual", "1"}, {"relative_residual", "1"}, {"alpha", "1"}, {"beta", "1"}});
      }
      file.commit();
      history_.emplace(ctx_, path);
      // Rows after the checkpoint stay until rewritten: a failed restart loses none.
      if (restarted_) history_->resume("cg", "step", static_cast<double>(restart_step_));
    }
    history_->add_row("cg", {static_cast<double>(s.iteration), s.residual, s.relative_residual, s.alpha, s.beta});
    history_->publish_if_due();
  }

  double median_seconds() const {
    std::vector<double> totals;
    for (const MultiplyTimes& t : times_) totals.push_back(t.total());
    return median(totals);
  }

  comm::Context& ctx_;
  Backend backend_;
  std::filesystem::path out_dir_;
  io::Provenance provenance_;
  Params p_;
  std::unique_ptr<Engine<T>> engine_;
  DistMatrix<T> a_;
  MatrixStats stats_;
  std::unique_ptr<DistributedSpmv<T>> spmv_;
  // multiply
  std::vector<T> x_host_;
  Array<T> x_, y_;
  bool has_y_ = false, verified_ = false;
  std::vector<MultiplyTimes> times_;
  // cg
  std::unique_ptr<Cg<T>> cg_;
  std::vector<T> b_, x_exact_;
  std::optional<io::SeriesLog> history_;

  std::int64_t step_ = 0, restart_step_ = 0;
  bool restarted_ = false;
};

}  // namespace

comm::MemoryNeed matrix_memory(double rows, double nnz, double value_bytes, double ranks) {
  const double r = std::ceil(rows / ranks), n = std::ceil(nnz / ranks);
  return {n * (16.0 + 4.0 + value_bytes) + r * (16.0 + 2.0 * value_bytes), 0.0};
}

std::unique_ptr<Solver> make_spmv_solver(RunContext& run) {
  Params p = params_from_deck(run.deck, run.backend);
  if (p.precision == Precision::float32) return std::make_unique<SpmvSolver<float>>(run, std::move(p));
  return std::make_unique<SpmvSolver<double>>(run, std::move(p));
}

}  // namespace tessera::spmv
