#pragma once
// The N-body solver, as the app registers it (solvers/builtin.cpp).
#include "solvers/solver.hpp"

namespace tessera::nbody {
SolverInfo solver_info();
}  // namespace tessera::nbody
