#include "solvers/scan/scan_solver.hpp"

#include <algorithm>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/deck/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "io/published.hpp"
#include "solvers/scan/job.hpp"
#include "solvers/scan/output.hpp"
#include "solvers/scan/params.hpp"

namespace tessera::scan {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class ScanSolver final : public Solver {
 public:
  explicit ScanSolver(RunContext& run)
      : ctx_(run.ctx), backend_(run.backend), output_dir_(run.output_dir),
        // The solver's name and the resolved deck, which scan.h5 records (io/provenance.hpp).
        provenance_(run.provenance),
        setup_(params_from_deck(run.ctx, run.deck, run.backend)),
        stream_(is_host_variant(setup_.variant) ? Stream::none() : Stream()),
        job_(make_job(ctx_, run.transport, setup_, stream_.get())) {}

  // The input (a file's block, or generated values) is read before the run touches its
  // output directory; initialize() and restart() then use it.
  void read_inputs() override {
    if (loaded_) return;
    job_->load();
    loaded_ = true;
  }

  void initialize() override {
    read_inputs();
    log::info("scan: {} elements, {} -> {}, {}, variant {} ({} memory), input {}", setup_.length,
              to_string(setup_.input_type), to_string(setup_.output_type), to_string(setup_.mode),
              to_string(setup_.variant), job_->memory() == Memory::device ? "device" : "host",
              setup_.input.describe());
  }

  void restart(io::CheckpointReader& checkpoint) override {
    initialize();
    const io::Group g = checkpoint.root().open_group("scan");
    auto refuse_unless = [&](bool same, std::string_view what, const std::string& then, const std::string& now) {
      if (!same)
        throw InputError(fmt::format("{} was written for {} {} but this deck has {}: restart with the same input",
                                     checkpoint.path().string(), what, then, now));
    };
    const auto length = io::read_attribute<std::int64_t>(g, "length");
    refuse_unless(length == setup_.length, "length", std::to_string(length), std::to_string(setup_.length));
    const auto type = io::read_attribute<std::string>(g, "type");
    refuse_unless(type == to_string(setup_.input_type), "type", type, std::string(to_string(setup_.input_type)));
    const auto acc = io::read_attribute<std::string>(g, "accumulate");
    refuse_unless(acc == to_string(setup_.output_type), "accumulate", acc, std::string(to_string(setup_.output_type)));
    const auto mode = io::read_attribute<std::string>(g, "mode");
    refuse_unless(mode == to_string(setup_.mode), "mode", mode, std::string(to_string(setup_.mode)));
    const auto checksum = io::read_attribute<std::uint64_t>(g, "input_checksum");
    refuse_unless(checksum == job_->input_checksum(), "an input", io::read_attribute<std::string>(g, "input"),
                  "different data (" + setup_.input.describe() + ")");
    step_ = checkpoint.manifest().step;
  }

  void advance() override {
    const PhaseTimes t = job_->run();
    times_.push_back(t);
    verified_ = false;
    ++step_;
  }

  std::int64_t step() const override { return step_; }
  double time() const override { return static_cast<double>(step_); }

  void write_output() override {
    if (!job_->has_result()) {
      if (step_ == 0) return;  // nothing scanned yet (an output cadence at step 0)
      job_->run();             // restarted at the last step: the result is one scan away
    }
    RunRecord record{backend_, step_, median_seconds(), provenance_};
    const auto path = write_result_file(ctx_, output_dir_, *job_, setup_, record);
    io::log_published(path);
  }

  void diagnostics() override {
    if (setup_.verify != VerifyMode::none && job_->has_result()) verify();
  }

  void write_checkpoint(io::CheckpointWriter& checkpoint) override {
    // A scan is one step: the step counter (in the manifest) and what the input was are all a
    // restart needs; the input itself is regenerated or re-read and checked against this.
    const std::uint64_t checksum = job_->input_checksum();
    const io::Group g = checkpoint.root().create_group("scan");
    io::write_attribute(g, "length", setup_.length);
    io::write_attribute(g, "type", std::string(to_string(setup_.input_type)));
    io::write_attribute(g, "accumulate", std::string(to_string(setup_.output_type)));
    io::write_attribute(g, "mode", std::string(to_string(setup_.mode)));
    io::write_attribute(g, "input", setup_.input.describe());
    io::write_attribute(g, "input_checksum", checksum);
  }

  double work_per_step() const override { return static_cast<double>(setup_.length); }
  std::string work_unit() const override { return "elements"; }
  bool has_time() const override { return false; }     // a step is one scan
  bool reports_rate() const override { return true; }  // the median scan's rate, in summary()

  void summary() override {
    if (setup_.verify != VerifyMode::none && job_->has_result() && !verified_) verify();
    if (times_.empty()) return;
    // The slowest rank's phases (the exscan phase includes waiting for the others' first phase).
    std::vector<double> totals;
    PhaseTimes mean;
    for (const PhaseTimes& t : times_) {
      totals.push_back(t.total());
      mean.begin += t.begin / times_.size();
      mean.exscan += t.exscan / times_.size();
      mean.finish += t.finish / times_.size();
    }
    const double med = comm::allreduce(ctx_, median(totals), comm::Op::max);
    const double b = comm::allreduce(ctx_, mean.begin, comm::Op::max);
    const double e = comm::allreduce(ctx_, mean.exscan, comm::Op::max);
    const double f = comm::allreduce(ctx_, mean.finish, comm::Op::max);
    log::info("scan: {} steps, median {:.3f} ms per scan = {:.3f} G elements/s ({} ranks); phases (mean, slowest "
              "rank): local {:.3f} ms, exscan {:.3f} ms, offset/finish {:.3f} ms",
              times_.size(), med * 1e3, med > 0 ? setup_.length / med / 1e9 : 0.0, ctx_.size(), b * 1e3, e * 1e3,
              f * 1e3);
  }

 private:
  double median_seconds() const {
    std::vector<double> totals;
    for (const PhaseTimes& t : times_) totals.push_back(t.total());
    return median(totals);
  }

  void verify() {
    const GlobalVerifyReport r = job_->verify();
    const VerifyReport& mine = r.local;
    comm::all_ok(ctx_, mine.mismatches == 0,
                 fmt::format("scan verification ({}) failed on rank {}: {} of {} compared elements differ; the first "
                             "at global index {}: {}",
                             to_string(setup_.verify), ctx_.rank(), mine.mismatches, mine.checked, mine.first_index,
                             mine.first));
    if (setup_.output_type == ValueType::float32 || setup_.output_type == ValueType::float64)
      log::info("verified ({}): {} elements agree with the CPU reference (largest error {:.3g} of the tolerance)",
                to_string(setup_.verify), r.checked, r.max_error);
    else
      log::info("verified ({}): {} elements equal the CPU reference", to_string(setup_.verify), r.checked);
    verified_ = true;
  }

  comm::Context& ctx_;
  Backend backend_;
  std::filesystem::path output_dir_;
  io::Provenance provenance_;
  Params setup_;
  Stream stream_;
  std::unique_ptr<ScanJob> job_;
  bool loaded_ = false;
  std::int64_t step_ = 0;
  std::vector<PhaseTimes> times_;
  bool verified_ = false;
};

}  // namespace

std::unique_ptr<Solver> make_scan_solver(RunContext& run) { return std::make_unique<ScanSolver>(run); }

}  // namespace tessera::scan
