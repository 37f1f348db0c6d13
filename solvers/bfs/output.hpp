#pragma once
// The solver's HDF5 file, <output_dir>/bfs.h5 (global layouts: the same file for any number
// of ranks):
//   /graph                 attributes: description, vertices, input_edges, self_loops,
//                          directed_edges (CSR entries), ranks, backend, algorithm
//   /searches              a time series, one row per root: step, root, seconds,
//                          input_edges, teps, reached, depth, top_down_levels,
//                          bottom_up_levels, validated
//   /trees/<k>/parent      int64[n] parent of every vertex in search k (-1: not reached)
//   /trees/<k>/level       int32[n] its level (-1: not reached); attributes root, seconds, teps
// Every dataset has its `units` (the /searches columns: seconds in s, teps in TEPS, the rest
// "1"), the root the provenance attributes (io/units.hpp, io/provenance.hpp).
//   /statistics            attributes <name>_TEPS, <name>_time, <name>_nedge for each Graph500
//                          statistic (min, firstquartile, median, ...), nbfs
// Rows and trees go through an io::SeriesLog: published in batches (io/series_log.hpp), and
// always by publish(), which the solver calls before its checkpoints and at the end.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "io/provenance.hpp"
#include "io/series_log.hpp"
#include "io/time_series.hpp"
#include "solvers/bfs/search.hpp"
#include "solvers/bfs/statistics.hpp"

namespace tessera::bfs {

struct GraphAttributes {
  std::string description, backend, algorithm;
  std::int64_t vertices = 0, input_edges = 0, self_loops = 0, directed_edges = 0;
  int ranks = 1;
};

class BfsOutput {
 public:
  BfsOutput(comm::Context& ctx, std::filesystem::path path, io::Provenance provenance)
      : ctx_(ctx), path_(std::move(path)), provenance_(std::move(provenance)), log_(ctx, path_) {}

  // Collective: a new file (replacing one there) with the graph's attributes.
  void create(const GraphAttributes& graph);
  // Collective: after a restart at `step`: the rows and trees of later searches (an
  // interrupted run's) stay until this run rewrites them (creates the file when it is missing).
  void reopen(const GraphAttributes& graph, std::int64_t step);
  // Collective: one search's row and, when `tree` is given, its arrays (this rank's window at
  // `begin` of n).
  void append(std::int64_t step, const SearchResult& r, bool validated, std::optional<BfsTree> tree,
              std::int64_t begin, std::int64_t n);
  // Collective: the statistics of the searches so far, published at once with what waits.
  void write_statistics(const std::vector<SearchResult>& results);
  // Collective: the file then holds every search appended so far.
  void publish() { log_.publish(); }

  const std::filesystem::path& path() const { return path_; }

 private:
  comm::Context& ctx_;
  std::filesystem::path path_;
  io::Provenance provenance_;
  io::SeriesLog log_;
};

std::vector<io::Column> search_columns();

}  // namespace tessera::bfs
