#pragma once
// At least what one rank of `ranks` holds for `n` bodies: positions+masses, velocities and
// accelerations (HostBodies: three Vec4s) and an id on the host; the cuda engine keeps the
// three Vec4s and a scratch copy on the GPU. Checked before bodies are generated or read.
#include <cmath>

#include "comm/memory.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

template <class T>
comm::MemoryNeed bodies_memory(double n, double ranks, bool cuda) {
  const double local = std::ceil(n / ranks);
  const double vec4 = sizeof(Vec4<T>);
  return {local * (3 * vec4 + sizeof(std::uint64_t)), cuda ? local * 4 * vec4 : 0};
}

}  // namespace tessera::nbody
