#pragma once
// One aligned 4-vector for every per-body quantity: a position and mass (x, y, z, m), a velocity
// (vx, vy, vz, unused) or an acceleration and potential (ax, ay, az, phi). A GPU thread moves
// one with a single 16-byte (float) load, and the ring ships positions and masses as one block.
#include <cstdint>
#include <vector>

namespace tessera::nbody {

template <class T>
struct alignas(4 * sizeof(T)) Vec4 {
  T x, y, z, w;
};
static_assert(sizeof(Vec4<float>) == 16 && sizeof(Vec4<double>) == 32);

// This rank's bodies on the host, in global order from `range.begin` (see nbody_solver.hpp).
template <class T>
struct HostBodies {
  std::vector<Vec4<T>> pos_mass;  // x, y, z, m
  std::vector<Vec4<T>> vel;       // vx, vy, vz, 0
  std::vector<Vec4<T>> acc;       // ax, ay, az, phi (phi valid only after a potential pass)
  std::vector<std::uint64_t> ids;

  std::size_t size() const { return pos_mass.size(); }
  void resize(std::size_t n) {
    pos_mass.resize(n);
    vel.resize(n);
    acc.resize(n);
    ids.resize(n);
  }
};

}  // namespace tessera::nbody
