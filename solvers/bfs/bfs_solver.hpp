#pragma once
// The BFS solver: `[run] solver = "bfs"`. One step searches from one root: given roots
// (bfs.roots) or, in Graph500 mode (bfs.graph500), root_count random roots of degree >= 1.
// Each search is timed, counted as Graph500 counts (input edges of the component), validated
// (five checks; a failure ends the run with an error) and appended to <output_dir>/bfs.h5
// (output.hpp). Checkpoints hold the results so far; the graph and the roots are rebuilt from
// the deck (both are deterministic), so a restart on any number of ranks continues exactly.
#include <memory>
#include <optional>
#include <vector>

#include "solvers/bfs/graph_spec.hpp"
#include "solvers/bfs/output.hpp"
#include "solvers/bfs/search.hpp"
#include "solvers/solver.hpp"

namespace tessera::bfs {

class BfsSolver final : public Solver {
 public:
  explicit BfsSolver(RunContext& run);
  ~BfsSolver() override;

  // Reads the graph file (or generates the graph) and prepares the searches, before the run
  // touches its output directory: a bad graph file is refused with nothing deleted.
  void read_inputs() override;
  void initialize() override;
  void restart(io::CheckpointReader& checkpoint) override;
  void advance() override;
  std::int64_t step() const override { return static_cast<std::int64_t>(results_.size()); }
  double time() const override { return static_cast<double>(results_.size()); }
  bool finished() const override { return results_.size() >= roots_.size(); }

  void write_output() override;
  void diagnostics() override;
  void write_checkpoint(io::CheckpointWriter& checkpoint) override;
  double work_per_step() const override;
  std::string work_unit() const override { return "edges"; }
  bool has_time() const override { return false; }     // a step is one root's search
  bool reports_rate() const override { return true; }  // TEPS per search, in summary()
  void summary() override;

 private:
  void prepare();  // builds the graph, the search driver and the roots
  GraphAttributes attributes() const;

  RunContext& run_;
  comm::Context& ctx_;
  GraphSpec spec_;
  SearchOptions options_;
  bool graph500_ = false, validate_ = true;
  int root_count_ = 64;
  std::uint64_t root_seed_ = 2;
  std::vector<std::int64_t> given_roots_;
  std::int64_t trees_ = -1;

  std::optional<BuiltGraph> built_;
  std::unique_ptr<SearchDriver> driver_;
  std::vector<std::int64_t> roots_;
  std::vector<SearchResult> results_;
  std::int64_t validated_ = 0;
  BfsOutput output_;
};

}  // namespace tessera::bfs
