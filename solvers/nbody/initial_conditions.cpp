#include "solvers/nbody/initial_conditions.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "solvers/nbody/reproducible_sum.hpp"
#include "solvers/nbody/rng.hpp"

namespace tessera::nbody {
namespace {

// An isotropic direction times `length`.
void isotropic(BodyRandom& rng, double length, double out[3]) {
  const double z = rng.uniform(-1.0, 1.0);
  const double phi = 2.0 * std::numbers::pi * rng.uniform();
  const double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
  out[0] = length * rho * std::cos(phi);
  out[1] = length * rho * std::sin(phi);
  out[2] = length * z;
}

// Aarseth, Henon & Wielen (1974): radius from the inverted cumulative mass (cut at 99.9% of
// the mass, r < 38.7 a), speed by rejection from g(q) = q^2 (1 - q^2)^(7/2) below the local
// escape speed. Returned in N-body units (G = M = 1, E = -1/4, virial radius 1).
void plummer_body(BodyRandom& rng, double x[3], double v[3]) {
  const double mass_fraction = 0.999 * rng.uniform_positive();
  const double r = 1.0 / std::sqrt(std::pow(mass_fraction, -2.0 / 3.0) - 1.0);  // scale length a = 1
  isotropic(rng, r, x);
  double q = 0.0;
  for (;;) {
    q = rng.uniform();
    const double g = q * q * std::pow(1.0 - q * q, 3.5);
    if (0.1 * rng.uniform() < g) break;
  }
  const double escape = std::numbers::sqrt2 * std::pow(1.0 + r * r, -0.25);
  isotropic(rng, q * escape, v);
  const double length = 3.0 * std::numbers::pi / 16.0;  // a in units of the virial radius
  const double speed = 1.0 / std::sqrt(length);
  for (int k = 0; k < 3; ++k) {
    x[k] *= length;
    v[k] *= speed;
  }
}

}  // namespace

std::int64_t first_galaxy_bodies(const Params& p, std::int64_t n) {
  const auto n1 = static_cast<std::int64_t>(std::llround(static_cast<double>(n) / (1.0 + p.galaxies.mass_ratio)));
  return std::clamp<std::int64_t>(n1, 1, n - 1);
}

RawBody raw_body(const Params& p, std::int64_t n, std::int64_t i) {
  BodyRandom rng(p.seed, static_cast<std::uint64_t>(i));
  RawBody b{};
  b.m = p.total_mass / static_cast<double>(n);
  switch (p.ic) {
    case InitialConditions::uniform:
      for (int k = 0; k < 3; ++k) b.x[k] = rng.uniform(-p.uniform.half_width, p.uniform.half_width);
      for (int k = 0; k < 3; ++k) b.v[k] = rng.uniform(-p.uniform.max_speed, p.uniform.max_speed);
      break;
    case InitialConditions::plummer:
    case InitialConditions::galaxies: {
      plummer_body(rng, b.x, b.v);
      std::int64_t members = n;
      if (p.ic == InitialConditions::galaxies) {
        const std::int64_t n1 = first_galaxy_bodies(p, n);
        b.group = i < n1 ? 0 : 1;
        members = b.group == 0 ? n1 : n - n1;
      }
      // Scale from N-body units to this sphere's mass and virial radius.
      const double mass = b.m * static_cast<double>(members);
      const double speed = std::sqrt(p.G * mass / p.plummer.virial_radius);
      for (int k = 0; k < 3; ++k) {
        b.x[k] *= p.plummer.virial_radius;
        b.v[k] *= speed;
      }
      break;
    }
    case InitialConditions::file:
      break;  // not generated
  }
  return b;
}

template <class T>
void generate_bodies(comm::Context& ctx, const Params& p, std::int64_t n, Range range, HostBodies<T>& out) {
  // Per sphere: mass, mass-weighted position and velocity (7 sums, 2 spheres).
  std::array<double, 14> sums{};
  if (p.ic != InitialConditions::uniform) {
    sums = reproducible_sum<14>(ctx, n, [&](std::int64_t i) {
      const RawBody b = raw_body(p, n, i);
      std::array<double, 14> t{};
      double* s = t.data() + 7 * b.group;
      s[0] = b.m;
      for (int k = 0; k < 3; ++k) {
        s[1 + k] = b.m * b.x[k];
        s[4 + k] = b.m * b.v[k];
      }
      return t;
    });
  }
  // Shift of each sphere: its centre of mass to the origin, then (galaxies) onto the orbit.
  double shift_x[2][3] = {}, shift_v[2][3] = {};
  for (int g = 0; g < 2; ++g) {
    const double m = sums[7 * g];
    if (m <= 0) continue;
    for (int k = 0; k < 3; ++k) {
      shift_x[g][k] = -sums[7 * g + 1 + k] / m;
      shift_v[g][k] = -sums[7 * g + 4 + k] / m;
    }
  }
  if (p.ic == InitialConditions::galaxies) {
    // Two-body orbit of the centres: relative position (d, b, 0), relative velocity along -x
    // with speed_factor times the parabolic speed; each centre placed about the common centre of mass.
    const double m1 = sums[0], m2 = sums[7], mt = m1 + m2;
    const double rel[3] = {p.galaxies.separation, p.galaxies.impact_parameter, 0.0};
    const double dist = std::sqrt(rel[0] * rel[0] + rel[1] * rel[1]);
    const double speed = p.galaxies.speed_factor * std::sqrt(2.0 * p.G * mt / dist);
    const double vrel[3] = {-speed, 0.0, 0.0};
    for (int k = 0; k < 3; ++k) {
      shift_x[0][k] += -m2 / mt * rel[k];
      shift_x[1][k] += m1 / mt * rel[k];
      shift_v[0][k] += -m2 / mt * vrel[k];
      shift_v[1][k] += m1 / mt * vrel[k];
    }
  }
  out.resize(static_cast<std::size_t>(range.count));
  for (std::int64_t l = 0; l < range.count; ++l) {
    const std::int64_t i = range.begin + l;
    const RawBody b = raw_body(p, n, i);
    const int g = b.group;
    out.pos_mass[l] = Vec4<T>{static_cast<T>(b.x[0] + shift_x[g][0]), static_cast<T>(b.x[1] + shift_x[g][1]),
                              static_cast<T>(b.x[2] + shift_x[g][2]), static_cast<T>(b.m)};
    out.vel[l] = Vec4<T>{static_cast<T>(b.v[0] + shift_v[g][0]), static_cast<T>(b.v[1] + shift_v[g][1]),
                         static_cast<T>(b.v[2] + shift_v[g][2]), T(0)};
    out.acc[l] = Vec4<T>{0, 0, 0, 0};
    out.ids[l] = static_cast<std::uint64_t>(i);
  }
}

template void generate_bodies<float>(comm::Context&, const Params&, std::int64_t, Range, HostBodies<float>&);
template void generate_bodies<double>(comm::Context&, const Params&, std::int64_t, Range, HostBodies<double>&);

}  // namespace tessera::nbody
