#pragma once
// The spmv solver's registration: name, deck schema, factory, benchmark, restart rules and
// memory estimate.
#include "solvers/solver.hpp"

namespace tessera::spmv {
SolverInfo solver_info();
}  // namespace tessera::spmv
