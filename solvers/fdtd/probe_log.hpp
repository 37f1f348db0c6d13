#pragma once
// probes.h5: the probe samples and the energy as extendible time series (io::TimeSeries),
// each column with its unit, and the provenance attributes (io/provenance.hpp) on the root.
//   /probes  columns step (1), time (s), <probe>.<component>... (V/m, A/m)
//            (E at t = step dt, H half a step earlier)
//   /energy  columns step (1), time (s), electric, magnetic, total (J)
// Samples wait in the Stepper until collect(); rows wait in an io::SeriesLog until it
// publishes them (in batches, and always at publish(): checkpoints and the end of the run).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "io/provenance.hpp"
#include "io/series_log.hpp"
#include "io/time_series.hpp"
#include "solvers/fdtd/stepper.hpp"

namespace tessera::fdtd {

class ProbeLog {
 public:
  ProbeLog(comm::Context& ctx, std::filesystem::path file, const Model& model, io::Provenance provenance);

  // Collective. A fresh run replaces the file; a restart keeps the rows up to `step` and
  // replaces those an interrupted run wrote after it as it rewrites them (never before).
  void start();
  void resume(std::int64_t step);

  // Collective: takes the samples the stepper holds; publishes when due (io/series_log.hpp).
  void collect(Stepper& stepper);
  void append_energy(std::int64_t step, double time, double electric, double magnetic);
  // Collective: the file then holds every row up to the stepper's step.
  void publish(Stepper& stepper);

  const std::filesystem::path& file() const { return file_; }
  const std::vector<io::Column>& probe_columns() const { return columns_; }

 private:
  comm::Context& ctx_;
  std::filesystem::path file_;
  double dt_;
  std::vector<io::Column> columns_;  // of /probes
  io::Provenance provenance_;
  io::SeriesLog log_;
};

}  // namespace tessera::fdtd
