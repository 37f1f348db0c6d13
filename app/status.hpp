#pragma once
// Rank-0 status lines at a steady wall-clock cadence: step, simulated time, throughput in the
// solver's unit over the last interval, elapsed time and ETA.
#include <cstdint>
#include <optional>
#include <string>

#include "core/timer.hpp"

namespace tessera::app {

// "1.23 T", "456 M", "7.8" (SI prefix for rates).
std::string si(double value);
// "1:02:03" or "2:03".
std::string clock_text(double seconds);

class StatusReporter {
 public:
  StatusReporter(double interval_s, std::int64_t first_step, std::int64_t last_step, std::optional<double> end_time,
                 std::string unit);
  // After each step; prints when the interval has passed.
  void stepped(std::int64_t step, double time, double work_per_step);
  // The closing line: total steps, wall time, mean throughput.
  void finish(std::int64_t step, double time);

  double elapsed() const { return run_.seconds(); }

 private:
  double interval_;
  std::int64_t first_, last_;
  std::optional<double> end_time_;
  std::string unit_;
  HostTimer run_, since_;
  std::int64_t steps_since_ = 0;
  double work_since_ = 0, work_total_ = 0;
  double start_time_ = -1;
};

}  // namespace tessera::app
