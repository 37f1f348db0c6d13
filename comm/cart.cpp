#include "comm/cart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/partition.hpp"

namespace tessera::comm {
namespace {

constexpr const char* kAxisName[3] = {"x", "y", "z"};

// Every check here depends only on arguments that are the same on every rank, so every rank
// throws the same InputError before the collective MPI_Cart_create: nothing can hang.
void check_global(const Index3& global) {
  for (int a = 0; a < 3; ++a)
    if (global[a] < 1)
      throw InputError(fmt::format("decomposition: the global grid has {} cells along {} (the grid is {}x{}x{}); "
                                   "every axis needs at least one cell",
                                   global[a], kAxisName[a], global[0], global[1], global[2]));
}

// Fills zero entries of `dims` with MPI_Dims_create and checks that the product is `ranks`.
std::array<int, 3> resolve_dims(std::array<int, 3> dims, int ranks, const Index3& global) {
  const auto shown = fmt::format("{}x{}x{}", dims[0], dims[1], dims[2]);
  long long fixed = 1;
  bool any_free = false;
  for (int d : dims) {
    if (d < 0)
      throw InputError(fmt::format("decomposition: rank grid {} has a negative entry (0 lets MPI choose)", shown));
    if (d == 0) any_free = true;
    else fixed *= d;
  }
  const auto mismatch = [&] {
    return InputError(fmt::format("decomposition: rank grid {} does not fit {} rank(s): the product of the "
                                  "fixed entries must {} the rank count (0 entries are chosen by MPI)",
                                  shown, ranks, any_free ? "divide" : "equal"));
  };
  if (any_free) {
    // MPI_Dims_create is erroneous (not merely failing) when the fixed entries do not divide.
    if (ranks % fixed != 0) throw mismatch();
    const std::array<int, 3> fixed_dims = dims;
    TESSERA_MPI_CHECK(MPI_Dims_create(ranks, 3, dims.data()));
    // MPI gives the free entries in non-increasing order from x; put the most ranks on the
    // slowest free axis instead (z, then y) where the grid has the cells for it. Arrays are
    // x-fastest, so a cut across z or y leaves contiguous rows on both sides: coalesced faces
    // and an interior that keeps whole rows, where a cut across x gives strided faces.
    std::vector<int> factors;
    for (int a = 0; a < 3; ++a)
      if (fixed_dims[a] == 0) factors.push_back(dims[a]);
    std::sort(factors.begin(), factors.end());
    const auto place = [&](const std::vector<int>& order) {
      std::array<int, 3> out = fixed_dims;
      std::size_t next = 0;
      for (int a = 0; a < 3; ++a)
        if (fixed_dims[a] == 0) out[a] = order[next++];
      return out;
    };
    const auto fits = [&](const std::array<int, 3>& d) {
      for (int a = 0; a < 3; ++a)
        if (global[a] < d[a]) return false;
      return true;
    };
    // Permutations from the most ranks on z down (descending z, then y, then x); the first
    // that fits wins. If none fits, MPI's own order stays and the caller reports the axis.
    std::vector<std::array<int, 3>> options;
    do {
      options.push_back(place(factors));
    } while (std::next_permutation(factors.begin(), factors.end()));
    std::sort(options.begin(), options.end(), [](const auto& a, const auto& b) {
      return std::tie(a[2], a[1], a[0]) > std::tie(b[2], b[1], b[0]);
    });
    for (const auto& option : options)
      if (fits(option)) {
        dims = option;
        break;
      }
  }
  if (static_cast<long long>(dims[0]) * dims[1] * dims[2] != ranks) throw mismatch();
  return dims;
}

}  // namespace

CartDecomposition::CartDecomposition(Context& ctx, Index3 global, std::array<int, 3> dims,
                                     std::array<bool, 3> periodic)
    : ctx_(&ctx), global_(global), periodic_(periodic) {
  check_global(global);
  dims_ = resolve_dims(dims, ctx.size(), global_);
  const bool chosen = dims[0] == 0 || dims[1] == 0 || dims[2] == 0;
  for (int a = 0; a < 3; ++a)
    if (global_[a] < dims_[a])
      throw InputError(fmt::format("decomposition: {} rank(s) along {} but only {} cell(s) there (global grid "
                                   "{}x{}x{}, rank grid {}x{}x{}{}); every rank needs at least one cell per axis",
                                   dims_[a], kAxisName[a], global_[a], global_[0], global_[1], global_[2],
                                   dims_[0], dims_[1], dims_[2],
                                   chosen ? " chosen by MPI_Dims_create: give the rank grid explicitly" : ""));

  // reorder = 0: cartesian ranks are world ranks, so neighbours are world ranks too and every
  // other layer (transports, collectives on ctx.world()) can use them directly.
  const int periods[3] = {periodic_[0], periodic_[1], periodic_[2]};
  TESSERA_MPI_CHECK(MPI_Cart_create(ctx.world(), 3, dims_.data(), periods, 0, &cart_));
  int cart_rank = -1;
  TESSERA_MPI_CHECK(MPI_Comm_rank(cart_, &cart_rank));
  if (cart_rank != ctx.rank())
    throw std::logic_error(fmt::format("MPI_Cart_create without reordering gave world rank {} cartesian rank {}",
                                       ctx.rank(), cart_rank));
  TESSERA_MPI_CHECK(MPI_Cart_coords(cart_, cart_rank, 3, coords_.data()));
  for (int a = 0; a < 3; ++a) {
    const Range r = block_range(global_[a], dims_[a], coords_[a]);
    local_offset_[a] = r.begin;
    local_size_[a] = r.count;
    TESSERA_MPI_CHECK(MPI_Cart_shift(cart_, a, 1, &neighbor_[a][0], &neighbor_[a][1]));
  }
}

CartDecomposition::~CartDecomposition() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // A destructor must not throw: a failure to free is harmless at this point.
  if (cart_ != MPI_COMM_NULL && !finalized) (void)MPI_Comm_free(&cart_);
}

int CartDecomposition::rank_of(std::array<int, 3> c) const {
  for (int a = 0; a < 3; ++a) {
    if (periodic_[a]) {
      c[a] %= dims_[a];
      if (c[a] < 0) c[a] += dims_[a];
    } else if (c[a] < 0 || c[a] >= dims_[a]) {
      return MPI_PROC_NULL;  // off a non-periodic face, like neighbor()
    }
  }
  int rank = MPI_PROC_NULL;
  TESSERA_MPI_CHECK(MPI_Cart_rank(cart_, c.data(), &rank));
  return rank;
}

}  // namespace tessera::comm
