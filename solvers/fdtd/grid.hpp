#pragma once
// Grid geometry shared by every part of the solver: component names, boxes of cells, the
// ghosted and padded array layout, and the part of the global grid one rank holds.
//
// Yee staggering (cell (i, j, k) holds one value of each component, in units of the cell):
//   Ex (i+1/2, j, k)      Ey (i, j+1/2, k)      Ez (i, j, k+1/2)
//   Hx (i, j+1/2, k+1/2)  Hy (i+1/2, j, k+1/2)  Hz (i+1/2, j+1/2, k)
#include <algorithm>
#include <array>
#include <cstdint>

#include "core/hd.hpp"

namespace tessera::fdtd {

using Index3 = std::array<std::int64_t, 3>;  // (x, y, z), the same type as comm::Index3

enum Component : int { kEx = 0, kEy, kEz, kHx, kHy, kHz };
inline constexpr int kComponents = 6;
inline constexpr const char* kComponentName[kComponents] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
// SI units of each component, as written in the files' `units` attributes (io/units.hpp).
inline constexpr const char* kComponentUnits[kComponents] = {"V/m", "V/m", "V/m", "A/m", "A/m", "A/m"};

// Position of a component's value in cell (0, 0, 0), in cells.
inline std::array<double, 3> staggering(int component) {
  switch (component) {
    case kEx: return {0.5, 0.0, 0.0};
    case kEy: return {0.0, 0.5, 0.0};
    case kEz: return {0.0, 0.0, 0.5};
    case kHx: return {0.0, 0.5, 0.5};
    case kHy: return {0.5, 0.0, 0.5};
    default: return {0.5, 0.5, 0.0};
  }
}

// Cells [lo, hi) per axis, in whatever coordinates the user says (local or global).
struct Box {
  Index3 lo{}, hi{};
  std::int64_t extent(int a) const { return std::max<std::int64_t>(hi[a] - lo[a], 0); }
  std::int64_t cells() const { return extent(0) * extent(1) * extent(2); }
  bool empty() const { return cells() == 0; }
  bool operator==(const Box&) const = default;
};

inline Box intersect(const Box& a, const Box& b) {
  Box r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::max(r.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return r;
}

inline Box shifted(const Box& b, const Index3& by) {
  return {{b.lo[0] + by[0], b.lo[1] + by[1], b.lo[2] + by[2]}, {b.hi[0] + by[0], b.hi[1] + by[1], b.hi[2] + by[2]}};
}

// One ghost cell on every side, rows padded to 32 floats. Cell (i, j, k), -1 <= i <= n0, sits
// at ((k + 1) * rows + j + 1) * pitch + i + 1 from the array base: comm::HaloLayout with ghost
// 1, pitch and rows, so arrays go to the halo exchange and to io::write_3d as they are.
struct Layout {
  std::int64_t pitch = 0, rows = 0, planes = 0;
  TESSERA_HD std::int64_t plane() const { return pitch * rows; }
  TESSERA_HD std::int64_t at(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return ((k + 1) * rows + (j + 1)) * pitch + (i + 1);
  }
  std::int64_t elements() const { return plane() * planes; }
  // The local cell (i, j, k) of an array index: at()'s inverse.
  Index3 cell_of(std::int64_t index) const {
    return {index % pitch - 1, (index / pitch) % rows - 1, index / plane() - 1};
  }
};

inline constexpr std::int64_t kRowAlign = 32;  // floats: interior rows start on 128-byte lines
// Arrays are allocated with kLeadPad elements before the base, so that base + at(0, j, k) is
// 128-byte aligned when the allocation is (pitch and plane are multiples of 32, and at(0,0,0)
// = plane + pitch + 1).
inline constexpr std::int64_t kLeadPad = kRowAlign - 1;

inline Layout make_layout(const Index3& n) {
  Layout l;
  l.pitch = (n[0] + 2 + kRowAlign - 1) / kRowAlign * kRowAlign;
  l.rows = n[1] + 2;
  l.planes = n[2] + 2;
  return l;
}
// Elements to allocate for one array: the lead pad, the layout, rounded up.
inline std::int64_t allocation_elements(const Layout& l) { return l.elements() + kRowAlign; }

// A periodic axis one rank spans alone, in host memory: the ghost layer `ghost` of `axis` gets
// layer `source`, over `face`'s extent on the other two axes (its extent along `axis` is not
// used). LocalGhosts and the cpu engine's blocked pass wrap with it.
inline void copy_layer(float* f, const Layout& l, int axis, std::int64_t ghost, std::int64_t source, Box face) {
  face.lo[axis] = 0;
  face.hi[axis] = 1;
  for (std::int64_t z = face.lo[2]; z < face.hi[2]; ++z)
    for (std::int64_t y = face.lo[1]; y < face.hi[1]; ++y)
      for (std::int64_t x = face.lo[0]; x < face.hi[0]; ++x) {
        Index3 g{x, y, z}, s{x, y, z};
        g[axis] = ghost;
        s[axis] = source;
        f[l.at(g[0], g[1], g[2])] = f[l.at(s[0], s[1], s[2])];
      }
}

// This rank's part of the global grid, and which ghost layers the exchange fills
// (neighbour[axis][side], side 0 low, 1 high; true also for a periodic axis on one rank).
struct LocalDomain {
  Index3 global{}, offset{}, n{};
  std::array<std::array<bool, 2>, 3> neighbour{};
  Box local() const { return {{0, 0, 0}, n}; }
  Box global_box() const { return {offset, {offset[0] + n[0], offset[1] + n[1], offset[2] + n[2]}}; }
  // A periodic axis that this rank spans alone: its own neighbour on both sides.
  bool wraps_alone(int axis) const { return neighbour[axis][0] && n[axis] == global[axis]; }
  // A side whose ghost layer another rank fills.
  bool remote(int axis, int side) const { return neighbour[axis][side] && !wraps_alone(axis); }
  bool owns(const Index3& g) const {
    for (int a = 0; a < 3; ++a)
      if (g[a] < offset[a] || g[a] >= offset[a] + n[a]) return false;
    return true;
  }
};

}  // namespace tessera::fdtd
