#include "app/status.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/log.hpp"

namespace tessera::app {

std::string si(double v) {
  static const char* prefix[] = {"", " k", " M", " G", " T", " P", " E"};
  int i = 0;
  while (std::abs(v) >= 1000.0 && i < 6) {
    v /= 1000.0;
    ++i;
  }
  return fmt::format("{:.3g}{}", v, prefix[i]);
}

std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const auto t = static_cast<long long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60) : fmt::format("{}:{:02}", t / 60, t % 60);
}

StatusReporter::StatusReporter(double interval_s, std::int64_t first_step, std::int64_t last_step,
                               std::optional<double> end_time, StatusStyle style)
    : interval_(interval_s), first_(first_step), last_(last_step), end_time_(end_time), style_(std::move(style)) {}

void StatusReporter::stepped(std::int64_t step, double time, double work_per_step) {
  ++steps_since_;
  work_since_ += work_per_step;
  work_total_ += work_per_step;
  if (start_time_ < 0) start_time_ = time;
  const double dt = since_.seconds();
  if (dt < interval_) return;
  // Fraction done by steps, or by simulated time when end_time comes first.
  double done = last_ > first_ ? double(step - first_) / double(last_ - first_) : 1.0;
  if (end_time_ && *end_time_ > start_time_) done = std::max(done, (time - start_time_) / (*end_time_ - start_time_));
  const double elapsed = run_.seconds();
  const double eta = done > 0 ? elapsed * (1.0 - done) / done : -1;
  log::info("{}", progress_text(step, time, work_since_ / dt, elapsed, eta));
  since_.reset();
  steps_since_ = 0;
  work_since_ = 0;
}

std::string StatusReporter::progress_text(std::int64_t step, double time, double rate, double elapsed,
                                          double eta) const {
  const std::string t = style_.has_time ? fmt::format("t = {:<11.5g} ", time) : std::string();
  return fmt::format("step {:>8}/{}  {}{}{}/s  elapsed {}  ETA {}", step, last_, t, si(rate), unit_suffix(),
                     clock_text(elapsed), clock_text(eta));
}

std::string StatusReporter::finish_text(std::int64_t step, double time, double elapsed) const {
  std::string text = fmt::format("done: step {}", step);
  if (style_.has_time) text += fmt::format(", t = {:.6g}", time);
  text += fmt::format(", {} steps in {} ({:.3f} s)", step - first_, clock_text(elapsed), elapsed);
  // A solver that times its own work reports that rate in its summary; a mean over this wall
  // time (which includes output, checks and checkpoints) would only contradict it.
  if (!style_.own_rate)
    text += fmt::format(", mean {}{}/s over this wall time (output, diagnostics and checkpoints included)",
                        si(elapsed > 0 ? work_total_ / elapsed : 0.0), unit_suffix());
  return text;
}

void StatusReporter::finish(std::int64_t step, double time) { log::info("{}", finish_text(step, time, run_.seconds())); }

}  // namespace tessera::app
