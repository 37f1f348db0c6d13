#pragma once
// The spmv solver: `[run] solver = "spmv"`. mode = "multiply": each step is one distributed
// y = A x (the same x: a deck repeats it [run] steps times to time it); mode = "cg": each step
// is one conjugate-gradient iteration, and the run ends when the residual reaches the
// tolerance. The matrix, x and b are read or generated when the solver is created, before the
// output directory is claimed, so a bad input leaves earlier outputs untouched.
#include <memory>

#include "comm/memory.hpp"
#include "solvers/solver.hpp"

namespace tessera::spmv {

std::unique_ptr<Solver> make_spmv_solver(RunContext& run);

// A lower bound of the host memory one rank needs for a matrix of `rows` rows and `nnz`
// nonzeros with `value_bytes`-byte values, on `ranks` ranks: the assembled rows (64-bit
// column and float64 value per nonzero) next to the blocks built from them.
comm::MemoryNeed matrix_memory(double rows, double nnz, double value_bytes, double ranks);

}  // namespace tessera::spmv
