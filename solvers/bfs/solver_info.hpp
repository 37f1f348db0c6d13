#pragma once
// Registration of the BFS solver (picked up by solvers/builtin.cpp).
#include "solvers/solver.hpp"

namespace tessera::bfs {
SolverInfo solver_info();
deck::Schema schema();
// `tessera bench bfs` (collective).
BenchReport bench(comm::Context& ctx, const BenchOptions& options);
}  // namespace tessera::bfs
