#pragma once
// The scan solver's registration: name, deck schema, factory and benchmark.
#include "solvers/solver.hpp"

namespace tessera::scan {
SolverInfo solver_info();
}  // namespace tessera::scan
