#pragma once
// The fdtd solver's registration (picked up by solvers/builtin.cpp).
#include "solvers/solver.hpp"

namespace tessera::fdtd {
SolverInfo solver_info();
}  // namespace tessera::fdtd
