#pragma once
// The pair interaction, written once for both backends (cpu reference and cuda kernels):
//
//   a_i += G m_j r_ij / (|r_ij|^2 + eps^2)^(3/2),   phi_i -= G m_j / (|r_ij|^2 + eps^2)^(1/2)
//
// add_pair() accumulates the sum without G (applied once per block by the caller) and returns
// m_j / r for the potential. On the GPU it is exactly 13 instructions per interaction:
// 3 FADD (dx, dy, dz), 3 FFMA (r^2 seeded with eps^2), 1 MUFU.RSQ, 3 FMUL (1/r^2, m/r,
// m/r^3), 3 FFMA (accumulate). The host evaluates the same expression tree without fusing
// (ISO C++ builds do not contract), so both backends agree to rounding.
//
// With kUnitMass the source's mass is taken as 1 (its w is not read): 12 instructions, one
// FMUL fewer. Kernels use it when every source has the same mass m and multiply the sums by m
// once (ForceArgs::common_mass); 1 * (1/r) is exact, so the terms are those of add_pair with
// m_j = 1 bit for bit.
#include <cmath>

#include "core/hd.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

TESSERA_HD float fused_mul_add(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return a * b + c;
#endif
}

TESSERA_HD double fused_mul_add(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return a * b + c;
#endif
}

// 1/sqrt(x): MUFU.RSQ on the device (the .cu files build with -ftz=true so no denormal fix-up
// code surrounds it), the correctly rounded quotient on the host.
TESSERA_HD float inverse_sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return rsqrtf(x);
#else
  return 1.0f / std::sqrt(x);
#endif
}

TESSERA_HD double inverse_sqrt(double x) {
#if defined(__CUDA_ARCH__)
  return rsqrt(x);
#else
  return 1.0 / std::sqrt(x);
#endif
}

// The smallest eps^2 used. A body meets itself (r = 0) in the tiled kernels, which do not
// test indices in the force loop; its term is dx * s = 0 only while s = m / r^3 stays finite.
// eps = 0 therefore means "softened below 1e-10 length units" (float; 1e-100 in double).
template <class T>
constexpr T min_softening2();
template <>
constexpr float min_softening2<float>() {
  return 1e-20f;
}
template <>
constexpr double min_softening2<double>() {
  return 1e-200;
}

template <class T>
inline T softening2(double eps) {
  const T e2 = static_cast<T>(eps * eps);
  return e2 > min_softening2<T>() ? e2 : min_softening2<T>();
}

// Adds body j's pull on a body at (xi, yi, zi) to (ax, ay, az); returns m_j / r (with
// kUnitMass: the pull and 1 / r of a unit mass at pj).
template <class T, bool kUnitMass = false>
TESSERA_HD T add_pair(T xi, T yi, T zi, const Vec4<T>& pj, T eps2, T& ax, T& ay, T& az) {
  const T dx = pj.x - xi;
  const T dy = pj.y - yi;
  const T dz = pj.z - zi;
  const T r2 = fused_mul_add(dz, dz, fused_mul_add(dy, dy, fused_mul_add(dx, dx, eps2)));
  const T inv_r = inverse_sqrt(r2);
  const T inv_r2 = inv_r * inv_r;
  const T m_inv_r = kUnitMass ? inv_r : pj.w * inv_r;
  const T s = m_inv_r * inv_r2;
  ax = fused_mul_add(dx, s, ax);
  ay = fused_mul_add(dy, s, ay);
  az = fused_mul_add(dz, s, az);
  return m_inv_r;
}

}  // namespace tessera::nbody
