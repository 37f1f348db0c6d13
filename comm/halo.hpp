#pragma once
// HaloExchange: fills the ghost layers of 3D arrays from the neighbouring subdomains of a
// CartDecomposition, through any Transport (host or device memory).
//
// Array layout (HaloLayout): x fastest. Interior cells (i, j, k) with 0 <= i < n[0] etc.;
// ghost width g on every side. Element (i, j, k), i in [-g, n[0]+g), sits at
//   ((k + g) * rows + (j + g)) * pitch + (i + g)
// with pitch >= n[0] + 2g (padding for alignment allowed) and rows >= n[1] + 2g.
//
// Two modes:
//  - faces (default): one phase, the 6 face slabs (interior extent on the other axes) of every
//    field are sent at once; edge and corner ghosts are not filled. This is what stencils that
//    read only axis neighbours (the Yee scheme) need, with the most overlap.
//  - corners: three phases x, then y, then z, each including the ghosts filled before, so edge
//    and corner ghosts are filled too. begin() starts phase x; finish() completes all three.
// A ghost layer at a non-periodic domain face is left untouched (boundary conditions own it).
// In corners mode an edge or corner ghost cell is filled when every ghost layer it lies in is
// filled (so a cell beyond a non-periodic face, or in a layer options.fill skips, is untouched).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "comm/cart.hpp"
#include "comm/transport.hpp"

namespace tessera::comm {

struct HaloLayout {
  Index3 n{};                   // interior cells per axis on this rank
  int ghost = 1;                // ghost width g (<= every n[a] of every rank)
  std::int64_t pitch = 0;       // elements per x row; 0 means n[0] + 2g
  std::int64_t rows = 0;        // rows per z plane; 0 means n[1] + 2g
  std::size_t elem_size = 4;    // bytes per element: 1, 2, 4, 8 or 16

  std::int64_t row_pitch() const { return pitch ? pitch : n[0] + 2 * ghost; }
  std::int64_t plane_rows() const { return rows ? rows : n[1] + 2 * ghost; }
  std::int64_t elements() const { return row_pitch() * plane_rows() * (n[2] + 2 * ghost); }
  std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return ((k + ghost) * plane_rows() + (j + ghost)) * row_pitch() + (i + ghost);
  }
};

struct HaloOptions {
  bool corners = false;
  // Which ghost layers to fill: fill[axis][side], side 0 = low, 1 = high. A stencil that only
  // reads the +x neighbour needs only fill[0][1]. Messages are skipped for unfilled sides.
  // Options must be the same on every rank (each rank sends what its neighbours will fill).
  std::array<std::array<bool, 2>, 3> fill{{{true, true}, {true, true}, {true, true}}};
};

class HaloExchange {
 public:
  // `fields` arrays of the same layout are exchanged together (one message per face and
  // neighbour, all fields packed into it). Memory follows the transport's memory().
  // Collective over the decomposition's ranks: the layouts are validated together, and a bad
  // one on any rank throws std::invalid_argument with the same message on every rank.
  // `decomp` and `transport` must outlive the exchange.
  HaloExchange(const CartDecomposition& decomp, Transport& transport, HaloLayout layout, int fields,
               HaloOptions options = {});
  ~HaloExchange();

  // Packs the send faces of every field (ordered after work on `stream`) and starts the
  // transfer. Interior work may run between begin() and finish(). (Faces mode reads the arrays
  // only here; corners mode packs phases y and z in finish(), so work in between must not write
  // the cells within `ghost` of the y and z faces.)
  void begin(std::span<void* const> fields, stream_t stream = nullptr);
  // Completes the transfer and unpacks into the ghost layers, ordered on `stream`.
  void finish(stream_t stream = nullptr);
  void exchange(std::span<void* const> fields, stream_t stream = nullptr) {
    begin(fields, stream);
    finish(stream);
  }

  const HaloLayout& layout() const { return layout_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  HaloLayout layout_;
};

}  // namespace tessera::comm
