#pragma once
// Generated initial conditions: plummer, uniform and galaxies. Body i is drawn from its own
// random stream keyed by (seed, i) and centre-of-mass sums are reproducible
// (reproducible_sum.hpp), so a run starts from the same bits on any number of ranks.
#include <cstdint>

#include "comm/context.hpp"
#include "core/partition.hpp"
#include "solvers/nbody/params.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

// One body before the centre-of-mass shift, in double precision.
struct RawBody {
  double x[3], v[3], m;
  int group;  // 0, or 1 for the second galaxy
};

// Body i of the run (no shift); any rank can call it for any i.
RawBody raw_body(const Params& p, std::int64_t n, std::int64_t i);

// Collective: fills `out` (resized) with bodies range.begin .. range.end() of n, ids = index,
// velocities and accelerations as described; accelerations zero.
template <class T>
void generate_bodies(comm::Context& ctx, const Params& p, std::int64_t n, Range range, HostBodies<T>& out);

// Bodies of the first galaxy (ic = galaxies): round(n / (1 + mass_ratio)), at least 1 and at most n - 1.
std::int64_t first_galaxy_bodies(const Params& p, std::int64_t n);

}  // namespace tessera::nbody
