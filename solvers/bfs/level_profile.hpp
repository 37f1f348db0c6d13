#pragma once
// Opt-in per-level timing of the search (TESSERA_BFS_PROFILE=1): for each level, its
// direction, the frontier it expanded and where the time went:
//   kernels   the rank's own steps (expand, claim received pairs, bottom-up, conversions)
//   exchange  moving data between ranks: (vertex, parent) pairs (in a top-down level, with
//             the first allgather of the level table), frontier bitmap words
//   counts    the level table's (other) allgather and the host's wait for it (this includes
//             waiting for the slowest rank: load imbalance shows here)
// Each phase ends with a wait for the stream, so profiled searches overlap less than plain
// ones and run a little slower; the breakdown is what matters. Where the GPU runs the level
// loop, the search runs as it does unprofiled and the kernels read the GPU's clock at each
// level's points (LevelClock): each rank's own steps, its first and last share (moving rows
// and words, and waiting for the other ranks: load imbalance shows here) and the decision. A
// level starts where the one before it was decided, so its steps include the graph's move to
// the level's branch. Rank 0 prints one block per search (host-driven: its own view, the
// other ranks' waits show in its counts; device-driven: every rank's GPU, rank by rank).
// `tessera run` profiles every search; `tessera bench bfs` times its searches unprofiled and
// then profiles some more (TESSERA_BENCH_BFS_PROFILED, 2 by default).
#include <cstdint>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "solvers/bfs/backend.hpp"

namespace tessera::bfs {

class LevelProfile {
 public:
  enum Phase { kKernels = 0, kExchange, kCounts, kPhases };

  // On when the environment variable TESSERA_BFS_PROFILE is set to anything but "0".
  static bool requested();

  explicit LevelProfile(bool on) : on_(on) {}
  bool on() const { return on_; }
  void set_on(bool on) { on_ = on; }

  void start_search();
  void begin_level(int level, bool bottom_up, std::int64_t frontier_vertices, std::int64_t frontier_edges);
  // Charges the time since the last mark to `phase`, after waiting for the kernels' stream.
  void mark(Phase phase, SearchBackend& k);
  // Collective: a device-driven search's levels by each rank's GPU clock (`mine`: this rank's).
  void record_clocks(comm::Context& ctx, const std::vector<LevelClock>& mine);
  // The block rank 0 prints for a search of `seconds` (the timed search).
  std::string report(std::int64_t root, double seconds, int ranks) const;

 private:
  std::string report_clocks(std::int64_t root, double seconds, int ranks) const;

  struct Level {
    int level = 0;
    bool bottom_up = false;
    std::int64_t vertices = 0, edges = 0;
    double ms[kPhases] = {};
  };
  bool on_ = false;
  std::vector<Level> levels_;
  std::vector<LevelClock> clocks_;  // rank r's level l: clocks_[l * ranks + r]
  int clocked_ranks_ = 0;
  double last_ = 0;  // seconds since start_search at the last mark
  double start_ = 0;
};

}  // namespace tessera::bfs
