#pragma once
// profile.h5: the merged `--profile` table (comm/profile_merge.hpp) as a self-describing file.
//
//   /regions     (n, 15) float64 table, one row per region (sorted by name), with `columns`
//                and per-column `units`; its attribute `names` holds the region names in row
//                order. Columns: calls_{min,mean,max}, inclusive_{min,mean,max,max_rank},
//                exclusive_{min,mean,max,max_rank}, percent_of_wall (inclusive mean over the
//                mean wall time), top_level (1: entered with no region open).
//   /wall_time   (3,) float64 [min, mean, max] over ranks, units s; attribute max_rank.
//   root         provenance attributes (io/provenance.hpp).
// Published like every output (io::OutputFile: verified, then renamed). Collective.
#include <filesystem>
#include <string>
#include <vector>

#include "comm/profile_merge.hpp"
#include "io/provenance.hpp"

namespace tessera::io {

// The table's column names and units, in order.
const std::vector<std::string>& profile_columns();
const std::vector<std::string>& profile_units();
// One row of the table (what the file holds for `row` with a mean wall time `wall_mean`).
std::vector<double> profile_row(const comm::ProfileRow& row, double wall_mean);

// Writes `dir`/profile.h5; returns its path.
std::filesystem::path write_profile_file(comm::Context& ctx, const std::filesystem::path& dir,
                                         const comm::MergedProfile& profile, const Provenance& provenance);

}  // namespace tessera::io
