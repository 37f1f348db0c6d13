#pragma once
// Whether the bodies of a run all weigh the same (every initial condition tessera generates
// does; a snapshot may not). The split kernel then sums the pull of unit masses and multiplies
// by the mass once, one instruction per interaction fewer (ForceArgs::common_mass).
#include <span>

#include "comm/context.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

// The mass every body on every rank has, or 0 when two masses differ or one is not positive
// and finite. Collective; `local` is this rank's bodies (a rank may hold none).
template <class T>
T common_mass(comm::Context& ctx, std::span<const Vec4<T>> local);

}  // namespace tessera::nbody
