#pragma once
// Rank-aware logging over spdlog. info/debug/warn print on rank 0 only (one status line per
// step, not P); error prints on every rank, prefixed with the rank, because the failing rank
// may not be 0. Lines are plain text ("[tessera 12:00:01] ..."), readable in a Slurm log.
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace tessera::log {

enum class Level { debug, info, warn, error, off };

// Called once by comm::Context after MPI_Init; before that, the process counts as rank 0 of 1.
void set_rank(int rank, int size);
void set_level(Level level);
Level parse_level(std::string_view text);  // debug|info|warn|error|off; throws InputError
int rank();

void write(Level level, bool all_ranks, std::string_view message);

template <class... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::debug, false, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::info, false, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::warn, false, fmt::format(f, std::forward<Args>(args)...));
}
// Every rank, e.g. a warning about this rank's GPU.
template <class... Args>
void warn_all(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::warn, true, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::error, true, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace tessera::log
