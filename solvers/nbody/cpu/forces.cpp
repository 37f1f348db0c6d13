// The OpenMP force reference: the same pair formula as the GPU (pair_force.hpp), each
// target's sources summed in index order. Targets go in chunks of 16 so the inner loop runs
// over targets (no reduction), which the compiler vectorises.
#include <algorithm>
#include <cstdint>

#include "solvers/nbody/forces.hpp"
#include "solvers/nbody/pair_force.hpp"

namespace tessera::nbody {
namespace {

constexpr int kChunk = 16;

template <class T, bool kPotential>
void chunk_forces(const ForceArgs<T>& a, std::int64_t i0) {
  const int m = static_cast<int>(std::min<std::int64_t>(kChunk, a.n_targets - i0));
  T xi[kChunk], yi[kChunk], zi[kChunk], ax[kChunk], ay[kChunk], az[kChunk], ph[kChunk];
  std::int64_t gi[kChunk];
  for (int t = 0; t < kChunk; ++t) {
    const Vec4<T> p = t < m ? a.targets[i0 + t] : Vec4<T>{0, 0, 0, 0};  // spare lanes are discarded
    xi[t] = p.x;
    yi[t] = p.y;
    zi[t] = p.z;
    ax[t] = ay[t] = az[t] = ph[t] = T(0);
    gi[t] = a.target_offset + i0 + t;
  }
  for (std::int64_t j = 0; j < a.n_sources; ++j) {
    const Vec4<T> pj = a.sources[j];
    const std::int64_t gj = a.source_offset + j;
    for (int t = 0; t < kChunk; ++t) {
      const T m_r = add_pair(xi[t], yi[t], zi[t], pj, a.eps2, ax[t], ay[t], az[t]);
      if constexpr (kPotential) ph[t] += gi[t] == gj ? T(0) : m_r;
    }
  }
  for (int t = 0; t < m; ++t) {
    const std::int64_t i = i0 + t;
    Vec4<T> r{a.G * ax[t], a.G * ay[t], a.G * az[t], kPotential ? -a.G * ph[t] : T(0)};
    if (a.accumulate) {
      const Vec4<T> o = a.acc[i];
      r = Vec4<T>{o.x + r.x, o.y + r.y, o.z + r.z, o.w + r.w};
    }
    a.acc[i] = r;
    if (a.vel) {
      Vec4<T>& v = a.vel[i];
      v.x = fused_mul_add(r.x, a.kick_dt, v.x);
      v.y = fused_mul_add(r.y, a.kick_dt, v.y);
      v.z = fused_mul_add(r.z, a.kick_dt, v.z);
    }
  }
}

}  // namespace

template <class T>
void forces_cpu(const ForceArgs<T>& a, int threads) {
  const std::int64_t chunks = (a.n_targets + kChunk - 1) / kChunk;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    if (a.potential)
      chunk_forces<T, true>(a, c * kChunk);
    else
      chunk_forces<T, false>(a, c * kChunk);
  }
}

template <class T>
void kick_drift_cpu(Vec4<T>* pos_mass, Vec4<T>* vel, const Vec4<T>* acc, std::int64_t n, T kick_dt, T drift_dt,
                    int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    Vec4<T>& v = vel[i];
    v.x = fused_mul_add(acc[i].x, kick_dt, v.x);
    v.y = fused_mul_add(acc[i].y, kick_dt, v.y);
    v.z = fused_mul_add(acc[i].z, kick_dt, v.z);
    if (drift_dt != T(0)) {
      Vec4<T>& x = pos_mass[i];
      x.x = fused_mul_add(v.x, drift_dt, x.x);
      x.y = fused_mul_add(v.y, drift_dt, x.y);
      x.z = fused_mul_add(v.z, drift_dt, x.z);
    }
  }
}

template void forces_cpu<float>(const ForceArgs<float>&, int);
template void forces_cpu<double>(const ForceArgs<double>&, int);
template void kick_drift_cpu<float>(Vec4<float>*, Vec4<float>*, const Vec4<float>*, std::int64_t, float, float, int);
template void kick_drift_cpu<double>(Vec4<double>*, Vec4<double>*, const Vec4<double>*, std::int64_t, double, double,
                                     int);

}  // namespace tessera::nbody
