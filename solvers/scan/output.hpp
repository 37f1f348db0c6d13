#pragma once
// <output_dir>/scan.h5: the result as one global 1-D dataset /scan (and /input on request),
// each with its units ("1": scanned values are pure numbers), with the run's metadata and the
// provenance attributes (io/provenance.hpp) as root attributes. Written to scan.h5.tmp and renamed when complete,
// so an interrupted write never replaces a good file.
#include <cstdint>
#include <filesystem>
#include <string>

#include "comm/context.hpp"
#include "core/backend.hpp"
#include "io/provenance.hpp"
#include "solvers/scan/job.hpp"
#include "solvers/scan/params.hpp"

namespace tessera::scan {

struct RunRecord {
  Backend backend = Backend::cpu;
  std::int64_t steps = 0;         // scans completed
  double seconds_per_scan = 0;    // median over the steps of this run (0: none timed)
  io::Provenance provenance;      // the solver and the resolved deck (TOML)
};

// Collective. Returns the final path.
std::filesystem::path write_result_file(comm::Context& ctx, const std::filesystem::path& dir, ScanJob& job,
                                        const Params& setup, const RunRecord& record);

}  // namespace tessera::scan
