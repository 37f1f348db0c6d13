#include "core/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "core/env.hpp"
#include "core/error.hpp"

namespace tessera::log {
namespace {

int g_rank = 0;
int g_size = 1;

spdlog::level::level_enum to_spd(Level l) {
  switch (l) {
    case Level::debug: return spdlog::level::debug;
    case Level::info: return spdlog::level::info;
    case Level::warn: return spdlog::level::warn;
    case Level::error: return spdlog::level::err;
    case Level::off: return spdlog::level::off;
  }
  return spdlog::level::info;
}

// Info goes to stdout, warnings and errors to stderr, each flushed at once so lines from
// different ranks interleave whole and nothing is lost when MPI_Abort ends the job.
spdlog::logger& logger() {
  static spdlog::logger lg = [] {
    auto out = std::make_shared<spdlog::sinks::stdout_sink_mt>();
    out->set_level(spdlog::level::trace);
    spdlog::logger l("tessera", out);
    l.set_pattern("%v");
    l.set_level(spdlog::level::info);
    l.flush_on(spdlog::level::trace);
    // For lines before the command line is parsed; main() refuses a bad value and applies
    // --log-level or this variable then.
    try {
      if (const auto level = env::get_choice("TESSERA_LOG_LEVEL")) l.set_level(to_spd(parse_level(*level)));
    } catch (const InputError&) {
    }
    return l;
  }();
  return lg;
}

spdlog::logger& err_logger() {
  static spdlog::logger lg = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    spdlog::logger l("tessera-err", sink);
    l.set_pattern("%v");
    l.flush_on(spdlog::level::trace);
    return l;
  }();
  return lg;
}

}  // namespace

void set_rank(int rank, int size) {
  g_rank = rank;
  g_size = size;
}

void set_level(Level level) { logger().set_level(to_spd(level)); }

Level parse_level(std::string_view t) {
  if (t == "debug") return Level::debug;
  if (t == "info") return Level::info;
  if (t == "warn" || t == "warning") return Level::warn;
  if (t == "error") return Level::error;
  if (t == "off") return Level::off;
  throw InputError(fmt::format("unknown log level '{}' (expected debug, info, warn, error or off)", t));
}

int rank() { return g_rank; }

void write(Level level, bool all_ranks, std::string_view message) {
  if (!all_ranks && g_rank != 0) return;
  auto& lg = logger();
  if (!lg.should_log(to_spd(level))) return;
  const char* tag = level == Level::error ? "error: " : level == Level::warn ? "warning: " : "";
  // Only lines every rank prints carry the rank; rank-0 lines are the job's voice.
  std::string line = all_ranks && g_size > 1 ? fmt::format("[tessera r{}] {}{}", g_rank, tag, message)
                                             : fmt::format("[tessera] {}{}", tag, message);
  if (level >= Level::warn)
    err_logger().log(to_spd(level), line);
  else
    lg.log(to_spd(level), line);
}

}  // namespace tessera::log
