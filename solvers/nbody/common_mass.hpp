#pragma once
// Whether the bodies of a run all weigh the same (every initial condition tessera generates
// does; a snapshot may not). The split kernel then sums the pull of unit masses and multiplies
// by the mass once, one instruction per interaction fewer (ForceArgs::common_mass).
#include <span>

#include "comm/context.hpp"
#include "solvers/nbody/backend.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

// The mass every body on every rank has, or 0 when two masses differ or one is not positive
// and finite. Collective; `local` is this rank's bodies (a rank may hold none).
template <class T>
T common_mass(comm::Context& ctx, std::span<const Vec4<T>> local);

// This rank's bodies into `engine`, and the engine told whether all bodies of the run weigh
// the same. Collective: every caller that uploads bodies goes through here, so none forgets.
template <class T>
void upload_bodies(comm::Context& ctx, Engine<T>& engine, const HostBodies<T>& bodies) {
  engine.upload(bodies);
  engine.set_common_mass(common_mass<T>(ctx, bodies.pos_mass));
}

}  // namespace tessera::nbody
