#pragma once
// The contract between a solver and the run loop (app/run_command.cpp, run_deck). A solver registers a
// SolverInfo (name, deck schema, factory, benchmarks); the loop does the rest: deck, backend,
// transport, init or restart, steps, and output, diagnostics and checkpoints at their cadences.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/memory.hpp"
#include "comm/transport.hpp"
#include "core/backend.hpp"
#include "core/deck/config.hpp"
#include "core/deck/schema.hpp"
#include "io/provenance.hpp"
#include "solvers/bench.hpp"

namespace tessera::io {
class CheckpointWriter;
class CheckpointReader;
}  // namespace tessera::io

namespace tessera {

// Everything a solver needs from the run, decided before it is created.
struct RunContext {
  comm::Context& ctx;
  Backend backend;
  comm::Transport& transport;
  const deck::Deck& deck;  // resolved; deck.to_toml() is what outputs record
  std::filesystem::path output_dir;  // exists on every rank's view when the solver is created
  // The solver's name and the resolved deck: every file the solver writes records them with
  // io::write_provenance (with tessera's version, the rank count and the date).
  io::Provenance provenance;
};

class Solver {
 public:
  virtual ~Solver() = default;

  // Reads and checks the deck's input files (an initial-conditions snapshot, a graph file):
  // collective, writes nothing. The run loop calls it before it deletes or writes anything in
  // the output directory (fresh runs, --overwrite and restarts alike), so a missing or bad
  // input is refused with the earlier run's files untouched. initialize() and restart() then
  // use what it read (they call it themselves when it has not run: idempotent).
  virtual void read_inputs() {}
  virtual void initialize() = 0;                             // fresh start from the deck
  virtual void restart(io::CheckpointReader& checkpoint) = 0;  // continue (any rank count)
  virtual void advance() = 0;                                // one step
  // Waits for the work advance() queued (a GPU's kernels), so that the loop's clock reads true
  // times: the run loop calls it before its closing line. Solvers whose steps end on the host
  // need nothing here.
  virtual void synchronize() {}
  virtual std::int64_t step() const = 0;                     // steps completed
  virtual double time() const = 0;                           // simulated time after step()
  // A solver whose work has a natural end (all BFS roots done) says so; time steppers run to
  // [run] steps / end_time.
  virtual bool finished() const { return false; }

  virtual void write_output() {}  // at [output] every, and at the end
  virtual void diagnostics() {}   // at [diagnostics] every: compute, log, append to a file
  virtual void write_checkpoint(io::CheckpointWriter& checkpoint) = 0;
  virtual std::vector<std::uint64_t> rng_state() const { return {}; }

  // Throughput in the solver's own unit ("interactions", "cell-updates", "elements", "edges").
  virtual double work_per_step() const = 0;
  virtual std::string work_unit() const = 0;
  virtual void summary() {}  // final report on rank 0 (after the loop)

  // Whether time() is a simulated time. A solver whose steps have none (a scan, a BFS root, a
  // multiply) returns its step count from time() and false here: status lines then show no "t =".
  virtual bool has_time() const { return true; }
  // Whether summary() reports a rate the solver measured itself (kernel time, without set-up,
  // output or checks); the run's closing line then gives no mean rate of its own.
  virtual bool reports_rate() const { return false; }
};

// The memory one rank needs for a deck, as a function of the rank count, and the deck key
// whose value sets the size (named when the run cannot fit; comm/memory.hpp).
struct MemoryEstimate {
  std::string key;
  comm::MemoryModel per_rank;
};

struct SolverInfo {
  std::string name;
  std::string description;
  int format_version = 1;  // of its checkpoints; newer files are refused
  std::function<deck::Schema()> schema;
  std::function<std::unique_ptr<Solver>(RunContext&)> create;
  // `tessera bench <name>`, when the solver has benchmarks (collective).
  std::function<BenchReport(comm::Context&, const BenchOptions&)> bench;
  // Deck keys of the solver's own tables (dotted; a table name covers its keys) that a
  // restart may change because they change how the run is computed or written, not what it
  // computes. Every other key must equal the checkpoint's (app/restart_check.hpp).
  std::vector<std::string> restart_may_change;
  // Checked before the solver is created; absent when the size is only known from an input
  // file (the solver then checks when it has read the size).
  std::function<std::optional<MemoryEstimate>(const deck::Deck&, Backend)> memory;
};

}  // namespace tessera
