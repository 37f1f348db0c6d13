#include "solvers/fdtd/probe_log.hpp"

#include "comm/collectives.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "io/published.hpp"

namespace tessera::fdtd {
namespace {

const std::vector<io::Column> kEnergyColumns{
    {"step", "1"}, {"time", "s"}, {"electric", "J"}, {"magnetic", "J"}, {"total", "J"}};

}  // namespace

ProbeLog::ProbeLog(comm::Context& ctx, std::filesystem::path file, const Model& model, io::Provenance provenance)
    : ctx_(ctx), file_(std::move(file)), dt_(model.dt), provenance_(std::move(provenance)), log_(ctx, file_) {
  columns_ = {{"step", "1"}, {"time", "s"}};
  for (const ProbeSpec& p : model.probes)
    for (const Node& n : p.nodes)
      columns_.push_back({p.name + "." + kComponentName[n.component], kComponentUnits[n.component]});
}

void ProbeLog::start() {
  io::OutputFile f(ctx_, file_);
  io::write_provenance(f.root(), provenance_);
  io::TimeSeries::create(f.root(), "energy", kEnergyColumns);
  if (columns_.size() > 2) io::TimeSeries::create(f.root(), "probes", columns_, 256);
  f.commit();
}

void ProbeLog::resume(std::int64_t step) {
  bool exists = false;
  comm::agree(ctx_, [&] {
    if (ctx_.is_root()) exists = std::filesystem::exists(file_);
  });
  exists = comm::broadcast_value(ctx_, exists ? 1 : 0) != 0;
  if (!exists) return start();
  // Every change is made to a copy, verified, then renamed over the file (io/output_file.hpp).
  io::OutputFile f = io::OutputFile::modify(ctx_, file_);
  io::write_provenance(f.root(), provenance_);  // this run's deck and version from here on
  io::TimeSeries::open_or_create(f.root(), "energy", kEnergyColumns);
  if (columns_.size() > 2) io::TimeSeries::open_or_create(f.root(), "probes", columns_, 256);
  f.commit();
  // Rows an interrupted run wrote after `step` stay until this run rewrites them: a restart
  // that fails loses none (io/series_log.hpp).
  log_.resume("energy", "step", double(step));
  if (columns_.size() > 2) log_.resume("probes", "step", double(step));
}

void ProbeLog::collect(Stepper& stepper) {
  if (columns_.size() <= 2) return;
  std::vector<std::int64_t> steps;
  const std::vector<float> local = stepper.drain_samples(steps);
  if (steps.empty()) return;  // the same on every rank: all sample the same steps
  // Each value lives on one rank: a sum over ranks of rows that are zero elsewhere gathers
  // them exactly.
  const std::size_t cols = columns_.size() - 2;
  const auto& mine = stepper.sample_columns();
  std::vector<double> rows(steps.size() * cols, 0.0);
  for (std::size_t r = 0; r < steps.size(); ++r)
    for (std::size_t s = 0; s < mine.size(); ++s)
      rows[r * cols + static_cast<std::size_t>(mine[s])] = local[r * mine.size() + s];
  comm::allreduce_inplace(ctx_, std::span<double>(rows), comm::Op::sum);

  std::vector<double> row(columns_.size());
  for (std::size_t r = 0; r < steps.size(); ++r) {
    row[0] = double(steps[r]);
    row[1] = double(steps[r]) * dt_;
    std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(r * cols), cols, row.begin() + 2);
    log_.add_row("probes", row);
  }
  log_.publish_if_due();
}

void ProbeLog::append_energy(std::int64_t step, double time, double electric, double magnetic) {
  log_.add_row("energy", {double(step), time, electric, magnetic, electric + magnetic});
  log_.publish_if_due();
}

void ProbeLog::publish(Stepper& stepper) {
  collect(stepper);
  log_.publish();
  io::log_published(log_.file());
}

}  // namespace tessera::fdtd
