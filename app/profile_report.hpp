#pragma once
// The end of a `--profile` run: the regions of every rank merged (comm/profile_merge.hpp),
// one table on rank 0's log and the same numbers in OUTPUT_DIR/profile.h5.
#include <filesystem>
#include <string>

#include "comm/profile_merge.hpp"
#include "io/provenance.hpp"

namespace tessera::app {

// The table as printed: one row per region, the run's top-level regions first (by inclusive
// time), then the nested ones (by exclusive time); calls, inclusive and exclusive seconds as
// min / mean / max over ranks with the rank of the max, and the inclusive mean as % of the
// mean wall time. A closing line gives the top-level regions' share of the wall time.
std::string profile_table(const comm::MergedProfile& profile);

// Collective: stops profiling, merges, logs the table and writes profile.h5 into `dir`.
void report_profile(comm::Context& ctx, const std::filesystem::path& dir, const io::Provenance& provenance);

}  // namespace tessera::app
