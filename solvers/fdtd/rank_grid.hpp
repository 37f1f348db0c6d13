#pragma once
// The rank grid of a run whose deck gives no fdtd.ranks (FdtdSolver).
#include <array>

#include "core/backend.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// The deck's fdtd.ranks where it gives them. Otherwise z alone is cut into the ranks
// (1 x 1 x P) where every rank then holds at least block_steps layers, in two cases:
// - a forced blocked sweep, since across ranks it takes z cuts only;
// - on a GPU with auto or fused, up to 4 ranks, and z the longest axis (so the z faces are the
//   smallest). The blocked sweep may then run (1.83x the fused step on 2 H200s), and the
//   fused sweep overlaps its whole-plane ghosts (94.8% weak).
// Otherwise {0, 0, 0}: MPI_Dims_create's grid.
std::array<int, 3> default_rank_grid(const Model& model, int ranks, Backend backend);

}  // namespace tessera::fdtd
