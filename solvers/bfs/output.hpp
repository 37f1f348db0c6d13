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
//   /statistics            attributes <name>_TEPS, <name>_time, <name>_nedge for each Graph500
//                          statistic (min, firstquartile, median, ...), nbfs
// Each call opens and closes the file, so it is complete on disk between searches.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
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
  BfsOutput(comm::Context& ctx, std::filesystem::path path) : ctx_(ctx), path_(std::move(path)) {}

  // Collective: a new file (replacing one there) with the graph's attributes.
  void create(const GraphAttributes& graph);
  // Collective: after a restart at `step`, drops the rows of later searches (creates the
  // file when it is missing).
  void reopen(const GraphAttributes& graph, std::int64_t step);
  // Collective: one search's row and, when `tree` is given, its arrays (this rank's window at
  // `begin` of n).
  void append(std::int64_t step, const SearchResult& r, bool validated, const BfsTree* tree, std::int64_t begin,
              std::int64_t n);
  // Collective: the statistics of the searches so far.
  void write_statistics(const std::vector<SearchResult>& results);

  const std::filesystem::path& path() const { return path_; }

 private:
  comm::Context& ctx_;
  std::filesystem::path path_;
};

std::vector<std::string> search_columns();

}  // namespace tessera::bfs
