#include "solvers/spmv/cg.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "core/profile.hpp"
#include "io/agree.hpp"

namespace tessera::spmv {

template <class T>
Cg<T>::Cg(comm::Context& ctx, DistributedSpmv<T>& spmv, const CgOptions& options, std::span<const T> diagonal,
          std::string matrix)
    : ctx_(ctx), spmv_(spmv), engine_(spmv.engine()), options_(options), matrix_(std::move(matrix)),
      n_(spmv.rows()) {
  if (spmv.rows() != spmv.cols()) throw std::logic_error("Cg: the matrix is not square");
  const Memory m = engine_.memory();
  x_ = Array<T>(m, static_cast<std::size_t>(n_));
  r_ = Array<T>(m, x_.size());
  p_ = Array<T>(m, x_.size());
  q_ = Array<T>(m, x_.size());
  if (options.jacobi) {
    std::vector<T> inverse(diagonal.size());
    std::int64_t bad = -1;
    for (std::size_t i = 0; i < diagonal.size() && bad < 0; ++i) {
      if (!(diagonal[i] > T(0)) || !std::isfinite(static_cast<double>(diagonal[i])))
        bad = static_cast<std::int64_t>(i);
      else
        inverse[i] = T(1) / diagonal[i];
    }
    // Collective: the lowest rank with a bad row names it.
    const std::int64_t row_begin = comm::exscan(ctx, n_);
    io::agree_input(ctx, [&] {
      if (bad >= 0)
        throw InputError(fmt::format("{}: row {} has diagonal entry {}; the Jacobi preconditioner "
                                     "(spmv.cg.preconditioner = \"jacobi\") needs a positive diagonal, as every "
                                     "symmetric positive definite matrix has",
                                     matrix_, row_begin + bad, static_cast<double>(diagonal[bad])));
    });
    d_ = Array<T>(m, inverse.size());
    d_.upload(inverse);
  }
}

template <class T>
void Cg<T>::set_residual(double rr) {
  rr_ = rr;
  status_.residual = std::sqrt(rr);
  status_.relative_residual = b_norm_ > 0 ? status_.residual / b_norm_ : status_.residual;
  status_.converged = status_.relative_residual <= options_.tolerance;
}

template <class T>
void Cg<T>::start(std::span<const T> b) {
  engine_.fill(x_.data(), T(0), n_);
  engine_.fill(p_.data(), T(0), n_);
  r_.upload(b);
  const T* d = options_.jacobi ? d_.data() : nullptr;
  std::array<double, 2> dots = engine_.residual_dots(r_.data(), d, n_);
  comm::allreduce_inplace(ctx_, std::span<double>(dots), comm::Op::sum);
  engine_.update_p(0.0, r_.data(), d, p_.data(), n_);  // p = z
  engine_.synchronize();
  rho_ = dots[0];
  b_norm_ = std::sqrt(dots[1]);
  status_ = {};
  set_residual(dots[1]);
  best_ = status_.relative_residual;
  best_iteration_ = 0;
}

template <class T>
const CgStatus& Cg<T>::iterate() {
  {
    TESSERA_PROFILE("cg.multiply");
    spmv_.multiply(p_.data(), q_.data());
  }
  profile::Region dot_region("cg.dots");  // local dot (the engine returns it on the host), then the allreduce
  const double pq = comm::allreduce(ctx_, engine_.dot(p_.data(), q_.data(), n_), comm::Op::sum);
  dot_region.end();
  const std::int64_t k = status_.iteration + 1;
  if (std::isnan(pq))
    comm::agree(ctx_, [&] {
      throw std::runtime_error(fmt::format("{}: CG iteration {}: p.Ap is not a number (the matrix or b holds values "
                                           "that overflow the precision)",
                                           matrix_, k));
    });
  if (!(pq > 0))
    io::agree_input(ctx_, [&] {
      throw InputError(fmt::format("{}: CG iteration {}: p.Ap = {:.6g} <= 0, so the matrix is not symmetric positive "
                                   "definite; conjugate gradients needs an SPD matrix (spmv.mode = \"multiply\" "
                                   "takes any matrix)",
                                   matrix_, k, pq));
    });
  const double alpha = rho_ / pq;
  const T* d = options_.jacobi ? d_.data() : nullptr;
  profile::Region update_region("cg.update");  // x, r and p, with the fused dots and their allreduce
  std::array<double, 2> dots = engine_.update_xr(alpha, p_.data(), q_.data(), d, x_.data(), r_.data(), n_);
  comm::allreduce_inplace(ctx_, std::span<double>(dots), comm::Op::sum);
  const double beta = dots[0] / rho_;
  engine_.update_p(beta, r_.data(), d, p_.data(), n_);
  engine_.synchronize();
  update_region.end();
  rho_ = dots[0];
  status_.iteration = k;
  status_.alpha = alpha;
  status_.beta = beta;
  set_residual(dots[1]);
  if (!std::isfinite(status_.residual))
    comm::agree(ctx_, [&] {
      throw std::runtime_error(fmt::format("{}: CG iteration {}: the residual is not finite", matrix_, k));
    });
  if (status_.relative_residual < best_) {
    best_ = status_.relative_residual;
    best_iteration_ = k;
  } else if (options_.stagnation > 0 && k - best_iteration_ >= options_.stagnation && !status_.converged) {
    comm::agree(ctx_, [&] {
      throw std::runtime_error(fmt::format(
          "{}: CG stagnated: the relative residual has not fallen below its smallest value, {:.6e} (iteration {}), "
          "in {} iterations (spmv.cg.stagnation); it is {:.6e} now, the tolerance {:.3g}. The matrix may be singular "
          "or too ill-conditioned for this precision: try spmv.cg.preconditioner = \"jacobi\" or precision "
          "\"float64\"",
          matrix_, best_, best_iteration_, options_.stagnation, status_.relative_residual, options_.tolerance));
    });
  }
  return status_;
}

template <class T>
CgState<T> Cg<T>::save() const {
  CgState<T> s;
  s.x = x_.download();
  s.r = r_.download();
  s.p = p_.download();
  s.scalars = {rho_, rr_, b_norm_, best_, static_cast<double>(best_iteration_)};
  return s;
}

template <class T>
void Cg<T>::load(const CgState<T>& s, std::int64_t iteration) {
  x_.upload(s.x);
  r_.upload(s.r);
  p_.upload(s.p);
  rho_ = s.scalars[0];
  b_norm_ = s.scalars[2];
  best_ = s.scalars[3];
  best_iteration_ = static_cast<std::int64_t>(s.scalars[4]);
  status_ = {};
  status_.iteration = iteration;
  set_residual(s.scalars[1]);
}

template class Cg<float>;
template class Cg<double>;

}  // namespace tessera::spmv
