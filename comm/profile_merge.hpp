#pragma once
// The `--profile` table across ranks: every rank's region records (core/profile.hpp) merged
// into one set of rows, the same on every rank.
//
// Regions are matched by name. The names are the union over all ranks, sorted, agreed before
// any number moves, so a rank that never entered a region (rank 0 writes files the others do
// not; a solver phase that only some ranks run) takes part with zeros instead of hanging or
// shifting the columns. Collective; every rank must call it, profiling on or off.
#include <cstdint>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "core/profile.hpp"

namespace tessera::comm {

// A quantity over ranks: min, mean, max, and the (lowest) rank that had the max.
struct Spread {
  double min = 0, mean = 0, max = 0;
  int max_rank = 0;
};

struct ProfileRow {
  std::string name;
  Spread calls, inclusive, exclusive;  // inclusive and exclusive in seconds
  bool top_level = false;              // entered with no region open, on some rank
};

struct MergedProfile {
  int ranks = 0;
  Spread wall;                   // seconds from profile::start() to the merge
  std::vector<ProfileRow> rows;  // sorted by name
};

// Spreads of per-rank values (values[r] is rank r's).
Spread spread_of(const std::vector<double>& values);

// Collective: merges `mine` (this rank's profile::snapshot()) and `wall_seconds`.
MergedProfile merge_profile(Context& ctx, const std::vector<profile::Stat>& mine, double wall_seconds);

}  // namespace tessera::comm
