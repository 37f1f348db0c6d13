#pragma once
// Geometry of distributed 3D arrays: which cells of a global array a rank holds (Box3) and
// where they sit in its local, possibly ghosted and padded, memory (Strided3).
//
// Axis order. comm::Index3 is (x, y, z): index 0 is x, 1 is y, 2 is z, in sizes, offsets and
// strides alike. Memory is x fastest: cell (i, j, k) of a local array at
//   ((k + start[2]) * dims[1] + (j + start[1])) * dims[0] + (i + start[0]).
// On disk a global array of (nx, ny, nz) cells is the HDF5 dataset of shape (nz, ny, nx),
// which is the same C order with x fastest: h5py's f["Ex"][k, j, i] is cell (i, j, k), and
// ParaView/XDMF read it with Dimensions="nz ny nx".
#include <cstdint>
#include <stdexcept>

#include "comm/cart.hpp"

namespace tessera::io {

using comm::Index3;

// This rank's cells [offset, offset + size) of a global array of `global` cells, (x, y, z).
struct Box3 {
  Index3 global{};
  Index3 offset{};
  Index3 size{};

  std::int64_t volume() const { return size[0] * size[1] * size[2]; }
  std::int64_t global_volume() const { return global[0] * global[1] * global[2]; }
  bool empty() const { return volume() == 0; }
};

// The box a CartDecomposition gives this rank.
inline Box3 box_of(const comm::CartDecomposition& d) { return {d.global(), d.local_offset(), d.local_size()}; }

// Local memory: an allocated array of dims (x, y, z) elements, x fastest, whose cell (0,0,0)
// of the box sits at `start`. A ghosted array has start = (g, g, g); padding is dims beyond
// size + 2g (dims[0] is the row pitch, dims[1] the rows per plane).
struct Strided3 {
  Index3 dims{};
  Index3 start{};

  // A dense array of exactly `size` cells.
  static Strided3 dense(const Index3& size) { return {size, {0, 0, 0}}; }
  // comm::HaloLayout's layout: ghost width g on every side, optional row pitch and plane rows
  // (0 = no padding).
  static Strided3 ghosted(const Index3& size, std::int64_t ghost, std::int64_t pitch = 0, std::int64_t rows = 0) {
    const Index3 dims{pitch ? pitch : size[0] + 2 * ghost, rows ? rows : size[1] + 2 * ghost, size[2] + 2 * ghost};
    return {dims, {ghost, ghost, ghost}};
  }

  std::int64_t elements() const { return dims[0] * dims[1] * dims[2]; }
  std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return ((k + start[2]) * dims[1] + (j + start[1])) * dims[0] + (i + start[0]);
  }
};

}  // namespace tessera::io
