#pragma once
// `tessera run`: the one run loop every solver shares.
//   deck (rank 0 reads and validates, then broadcasts) -> backend and transport -> solver
//   -> initialize or restart -> steps, with output, diagnostics and checkpoints at their
//   cadences and status lines on a wall-clock cadence -> final output/checkpoint -> summary.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "comm/context.hpp"
#include "core/deck/config.hpp"

namespace tessera::app {

struct RunOptions {
  std::string deck;                    // path of the TOML deck
  std::vector<std::string> overrides;  // --set table.key=value
  std::string backend;                 // --backend (empty: the deck's [run] backend)
  std::string restart;                 // --restart FILE, or "latest"
  bool overwrite = false;              // --overwrite: delete an earlier run's outputs first
  bool profile = false;                // --profile: the table of timed regions at the end ([run] profile)
};

// The command line of a run (continue_latest = false), or the command that continues it after
// an early stop: the same deck, --set overrides and --backend with --restart latest. It starts
// with the launcher and rank count this run had ("mpirun -np 3 ", from the launcher's
// environment) and the absolute path of the executable that runs (/proc/self/exe), so a user
// can paste it; each argument is quoted for a POSIX shell where needed.
std::string restart_command(const RunOptions& options, bool continue_latest = true);

struct RunSummary {
  std::int64_t first_step = 0, last_step = 0;
  double time = 0;
  int outputs = 0, diagnostics = 0, checkpoints = 0;
  int stop_signal = 0;  // non-zero when a signal ended the run early
  std::filesystem::path last_checkpoint;
};

// Collective. Rank 0 reads `path` and validates it (with overrides); every rank receives the
// resolved deck. Errors (missing file, syntax, unknown keys, ranges) are InputErrors agreed on
// every rank.
deck::Deck load_run_deck(comm::Context& ctx, const Registry& registry, const std::string& path,
                         const std::vector<std::string>& overrides);

// Collective. Runs a loaded deck to its end (or a stop signal).
RunSummary run_deck(comm::Context& ctx, const Registry& registry, const deck::Deck& deck, const RunOptions& options);

int run_command(comm::Context& ctx, const RunOptions& options);

}  // namespace tessera::app
