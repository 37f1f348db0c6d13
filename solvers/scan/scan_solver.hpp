#pragma once
// The scan solver: `[run] solver = "scan"`. Each step is one full distributed scan of the input
// (a deck repeats it `[run] steps` times to time it); outputs write the result, diagnostics
// verify it, and a checkpoint records the step and a fingerprint of the input.
#include <memory>

#include "solvers/solver.hpp"

namespace tessera::scan {
std::unique_ptr<Solver> make_scan_solver(RunContext& run);
}  // namespace tessera::scan
