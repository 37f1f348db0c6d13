#include "solvers/nbody/common_mass.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "comm/collectives.hpp"

namespace tessera::nbody {

template <class T>
T common_mass(comm::Context& ctx, std::span<const Vec4<T>> local) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Vec4<T>& b : local) {
    if (std::isnan(b.w)) {  // equal to nothing: make the extremes differ on every rank
      lo = -std::numeric_limits<double>::infinity();
      hi = -lo;
      break;
    }
    lo = std::min(lo, static_cast<double>(b.w));
    hi = std::max(hi, static_cast<double>(b.w));
  }
  lo = comm::allreduce(ctx, lo, comm::Op::min);
  hi = comm::allreduce(ctx, hi, comm::Op::max);
  return lo == hi && lo > 0 && std::isfinite(lo) ? static_cast<T>(lo) : T(0);
}

template float common_mass<float>(comm::Context&, std::span<const Vec4<float>>);
template double common_mass<double>(comm::Context&, std::span<const Vec4<double>>);

}  // namespace tessera::nbody
