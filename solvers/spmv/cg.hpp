#pragma once
// Conjugate gradients on A x = b over the ranks, unpreconditioned or with Jacobi (M = diag A):
//
//   x = 0, r = b, z = M^-1 r, p = z, rho = r.z
//   each iteration:  q = A p;  alpha = rho / p.q
//                    x += alpha p, r -= alpha q, and r.z, r.r in the same pass (fused)
//                    beta = r.z / rho;  rho = r.z;  p = z + beta p
//   stop when ||r|| <= tolerance ||b||.
//
// Dot products are summed per rank in a fixed order and then over the ranks (comm
// allreduce), so every rank holds the same scalars and a run repeats bit for bit on the same
// rank count; the state (x, r, p, rho and the counters) is all a checkpoint needs.
//
// Failures are agreed on every rank: p.q <= 0 (the matrix is not symmetric positive
// definite) is an InputError (exit 2), as is a non-positive diagonal under Jacobi; a
// residual that is not finite or has not reached a new minimum for `stagnation` iterations
// is a run-time error (exit 1).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/distributed_spmv.hpp"

namespace tessera::spmv {

struct CgOptions {
  double tolerance = 1e-8;      // on ||r|| / ||b||
  bool jacobi = false;
  std::int64_t stagnation = 0;  // iterations without a new smallest residual before giving up (0: never)
};

struct CgStatus {
  std::int64_t iteration = 0;
  double residual = 0;           // ||r|| (the recurrence's)
  double relative_residual = 0;  // ||r|| / ||b|| (0 when b = 0)
  double alpha = 0, beta = 0;
  bool converged = false;
};

// Everything an iteration depends on, on the host (this rank's rows) for checkpoints.
template <class T>
struct CgState {
  std::vector<T> x, r, p;
  std::array<double, 5> scalars{};  // rho, ||r||^2, ||b||, best relative residual, its iteration
};

template <class T>
class Cg {
 public:
  // Collective. `diagonal`: this rank's diagonal entries (host), used by Jacobi; `matrix`
  // names the matrix in messages.
  Cg(comm::Context& ctx, DistributedSpmv<T>& spmv, const CgOptions& options, std::span<const T> diagonal,
     std::string matrix);

  // Collective: starts from x = 0 with right-hand side b (this rank's rows, host).
  void start(std::span<const T> b);
  // Collective: one iteration.
  const CgStatus& iterate();

  const CgStatus& status() const { return status_; }
  double b_norm() const { return b_norm_; }

  CgState<T> save() const;
  // Continues from a saved state at iteration `iteration`.
  void load(const CgState<T>& state, std::int64_t iteration);
  std::vector<T> solution() const { return x_.download(); }

 private:
  void set_residual(double rr);

  comm::Context& ctx_;
  DistributedSpmv<T>& spmv_;
  Engine<T>& engine_;
  CgOptions options_;
  std::string matrix_;
  std::int64_t n_ = 0;
  Array<T> x_, r_, p_, q_, d_;  // d_: M^-1 (empty without Jacobi)
  double rho_ = 0, rr_ = 0, b_norm_ = 0, best_ = 0;
  std::int64_t best_iteration_ = 0;
  CgStatus status_;
};

}  // namespace tessera::spmv
