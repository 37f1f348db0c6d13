#pragma once
// Rank-0 status lines at a steady wall-clock cadence: step, simulated time (for solvers that
// have one), throughput in the solver's unit over the last interval, elapsed time and ETA; and
// one closing line.
#include <cstdint>
#include <optional>
#include <string>

#include "core/timer.hpp"

namespace tessera::app {

// "1.23 T", "456 M", "7.8" (SI prefix for rates).
std::string si(double value);
// "1:02:03" or "2:03".
std::string clock_text(double seconds);

// What the lines say about a solver (solvers/solver.hpp: Solver::has_time, reports_rate).
struct StatusStyle {
  std::string unit;         // the solver's work unit ("cell-updates"); empty: none
  bool has_time = true;     // time() is a simulated time; else no "t =" is shown
  bool own_rate = false;    // summary() reports a measured rate; the closing line then shows none
};

class StatusReporter {
 public:
  StatusReporter(double interval_s, std::int64_t first_step, std::int64_t last_step, std::optional<double> end_time,
                 StatusStyle style);
  // After each step; prints when the interval has passed.
  void stepped(std::int64_t step, double time, double work_per_step);
  // The closing line: total steps, wall time and, unless the solver reports its own, the mean
  // throughput over that wall time.
  void finish(std::int64_t step, double time);

  // The lines as printed (without the log prefix), for given clock readings.
  std::string progress_text(std::int64_t step, double time, double rate, double elapsed, double eta) const;
  std::string finish_text(std::int64_t step, double time, double elapsed) const;

  double elapsed() const { return run_.seconds(); }

 private:
  std::string unit_suffix() const { return style_.unit.empty() ? "" : " " + style_.unit; }

  double interval_;
  std::int64_t first_, last_;
  std::optional<double> end_time_;
  StatusStyle style_;
  HostTimer run_, since_;
  std::int64_t steps_since_ = 0;
  double work_since_ = 0, work_total_ = 0;
  double start_time_ = -1;
};

}  // namespace tessera::app
