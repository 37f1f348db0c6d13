#pragma once
// A 3D Cartesian decomposition of a global grid over the ranks of ctx.world()
// (MPI_Cart_create without reordering, so cartesian ranks equal world ranks). Sizes may be
// uneven: along each axis block_range() splits the cells, differing by at most one.
#include <array>
#include <cstdint>

#include "comm/context.hpp"

namespace tessera::comm {

using Index3 = std::array<std::int64_t, 3>;

class CartDecomposition {
 public:
  // dims[a] == 0 lets MPI_Dims_create choose how many ranks, the most on the slowest free
  // axis with the cells for them (z, then y: whole x rows on both sides of a cut); the product
  // must equal ctx.size(). Throws
  // InputError when dims do not fit the rank count or an axis has fewer cells than ranks.
  CartDecomposition(Context& ctx, Index3 global, std::array<int, 3> dims, std::array<bool, 3> periodic);
  ~CartDecomposition();
  CartDecomposition(const CartDecomposition&) = delete;
  CartDecomposition& operator=(const CartDecomposition&) = delete;

  Context& context() const { return *ctx_; }
  MPI_Comm cart() const { return cart_; }
  const Index3& global() const { return global_; }
  const std::array<int, 3>& dims() const { return dims_; }
  const std::array<int, 3>& coords() const { return coords_; }
  const std::array<bool, 3>& periodic() const { return periodic_; }
  const Index3& local_size() const { return local_size_; }
  const Index3& local_offset() const { return local_offset_; }
  // World rank of the neighbour on `side` (0 = low, 1 = high) of `axis`, or MPI_PROC_NULL at a
  // non-periodic domain face.
  int neighbor(int axis, int side) const { return neighbor_[axis][side]; }
  // World rank holding cartesian coordinates c (wrapping periodic axes); MPI_PROC_NULL when c
  // lies off a non-periodic face, as neighbor() does.
  int rank_of(std::array<int, 3> c) const;

 private:
  Context* ctx_;
  MPI_Comm cart_ = MPI_COMM_NULL;
  Index3 global_{}, local_size_{}, local_offset_{};
  std::array<int, 3> dims_{}, coords_{};
  std::array<bool, 3> periodic_{};
  int neighbor_[3][2]{};
};

}  // namespace tessera::comm
