#pragma once
// The solvers built into this tessera (those whose folder exists; see solvers/CMakeLists.txt).
#include <vector>

#include "solvers/solver.hpp"

namespace tessera {
std::vector<SolverInfo> builtin_solvers();
}  // namespace tessera
