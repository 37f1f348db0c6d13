// CartDecomposition for every rank grid the rank count allows: dims chosen or forced, block
// sizes and offsets that tile the global grid, neighbours that agree pairwise, periodic wrap,
// and the InputErrors for rank grids that do not fit.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "comm/cart.hpp"
#include "comm/collectives.hpp"
#include "core/error.hpp"
#include "core/partition.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera {
namespace {

std::vector<std::array<int, 3>> rank_grids(int ranks) {
  std::vector<std::array<int, 3>> out;
  for (int x = 1; x <= ranks; ++x)
    for (int y = 1; y <= ranks; ++y)
      if (ranks % (x * y) == 0) out.push_back({x, y, ranks / (x * y)});
  return out;
}

// What every rank knows about every other, gathered.
struct Gathered {
  std::vector<std::array<int, 3>> coords;
  std::vector<comm::Index3> size, offset;
  std::vector<std::array<std::array<int, 2>, 3>> neighbor;
};

Gathered gather(comm::Context& ctx, const comm::CartDecomposition& d) {
  const auto p = static_cast<std::size_t>(ctx.size());
  Gathered g{std::vector<std::array<int, 3>>(p), std::vector<comm::Index3>(p), std::vector<comm::Index3>(p),
             std::vector<std::array<std::array<int, 2>, 3>>(p)};
  for (int a = 0; a < 3; ++a) {
    const auto c = comm::allgather(ctx, d.coords()[a]);
    const auto s = comm::allgather(ctx, d.local_size()[a]);
    const auto o = comm::allgather(ctx, d.local_offset()[a]);
    const auto lo = comm::allgather(ctx, d.neighbor(a, 0));
    const auto hi = comm::allgather(ctx, d.neighbor(a, 1));
    for (std::size_t r = 0; r < p; ++r) {
      g.coords[r][a] = c[r];
      g.size[r][a] = s[r];
      g.offset[r][a] = o[r];
      g.neighbor[r][a] = {lo[r], hi[r]};
    }
  }
  return g;
}

void check_decomposition(comm::Context& ctx, const comm::CartDecomposition& d) {
  const auto& dims = d.dims();
  ASSERT_EQ(dims[0] * dims[1] * dims[2], ctx.size());
  int topo = MPI_UNDEFINED, cart_rank = -1;
  ASSERT_EQ(MPI_Topo_test(d.cart(), &topo), MPI_SUCCESS);
  EXPECT_EQ(topo, MPI_CART);
  ASSERT_EQ(MPI_Comm_rank(d.cart(), &cart_rank), MPI_SUCCESS);
  EXPECT_EQ(cart_rank, ctx.rank()) << "no reordering: cartesian ranks are world ranks";
  EXPECT_EQ(d.rank_of(d.coords()), ctx.rank());

  const Gathered g = gather(ctx, d);
  const int p = ctx.size();
  std::int64_t cells = 0;
  for (int r = 0; r < p; ++r) {
    SCOPED_TRACE(::testing::Message() << "rank " << r);
    cells += g.size[r][0] * g.size[r][1] * g.size[r][2];
    for (int a = 0; a < 3; ++a) {
      const int c = g.coords[r][a];
      ASSERT_TRUE(c >= 0 && c < dims[a]);
      // Blocks along each axis: sizes differ by at most one, offsets are the running sum.
      const Range want = block_range(d.global()[a], dims[a], c);
      EXPECT_EQ(g.size[r][a], want.count);
      EXPECT_EQ(g.offset[r][a], want.begin);
      EXPECT_GE(g.size[r][a], 1);
      EXPECT_LE(g.size[r][a], d.global()[a] / dims[a] + 1);
      EXPECT_GE(g.size[r][a], d.global()[a] / dims[a]);
      std::int64_t before = 0;
      for (int q = 0; q < p; ++q) {
        bool same_line = true;  // q sits on r's line along a, before r
        for (int b = 0; b < 3; ++b)
          if (b != a && g.coords[q][b] != g.coords[r][b]) same_line = false;
        if (same_line && g.coords[q][a] < c) before += g.size[q][a];
      }
      EXPECT_EQ(g.offset[r][a], before);

      for (int side = 0; side < 2; ++side) {
        const int nb = g.neighbor[r][a][side];
        const int step = side ? 1 : -1;
        const bool at_face = side ? c == dims[a] - 1 : c == 0;
        if (at_face && !d.periodic()[a]) {
          EXPECT_EQ(nb, MPI_PROC_NULL) << "axis " << a << " side " << side;
          continue;
        }
        ASSERT_TRUE(nb >= 0 && nb < p) << "axis " << a << " side " << side;
        // The neighbour sits one step along a (wrapping), at the same place on the other axes,
        // and sees r on its opposite side.
        for (int b = 0; b < 3; ++b) {
          const int expect = b == a ? (c + step + dims[a]) % dims[a] : g.coords[r][b];
          EXPECT_EQ(g.coords[nb][b], expect) << "axis " << a << " side " << side;
        }
        EXPECT_EQ(g.neighbor[nb][a][1 - side], r) << "axis " << a << " side " << side;
        auto cc = g.coords[r];
        cc[a] += step;
        EXPECT_EQ(d.rank_of(cc), nb);
      }
      // Lines along a sum to the global extent.
      if (c == 0) {
        std::int64_t total = 0;
        for (int q = 0; q < p; ++q) {
          bool same_line = true;
          for (int b = 0; b < 3; ++b)
            if (b != a && g.coords[q][b] != g.coords[r][b]) same_line = false;
          if (same_line) total += g.size[q][a];
        }
        EXPECT_EQ(total, d.global()[a]);
      }
    }
  }
  EXPECT_EQ(cells, d.global()[0] * d.global()[1] * d.global()[2]);
}

TEST(Cart, ForcedRankGridsEveryShapeAndPeriodicity) {
  auto& ctx = test::context();
  for (const auto& dims : rank_grids(ctx.size()))
    for (int m = 0; m < 8; ++m) {
      const std::array<bool, 3> periodic{bool(m & 1), bool(m & 2), bool(m & 4)};
      SCOPED_TRACE(::testing::Message() << dims[0] << "x" << dims[1] << "x" << dims[2] << " periodic " << m);
      const comm::CartDecomposition d(ctx, {7, 5, 6}, dims, periodic);
      EXPECT_EQ(d.dims(), dims);
      EXPECT_EQ(d.periodic(), periodic);
      EXPECT_EQ(d.global(), (comm::Index3{7, 5, 6}));
      check_decomposition(ctx, d);
    }
}

TEST(Cart, ZeroDimsAreChosenByMpi) {
  auto& ctx = test::context();
  const int p = ctx.size();
  {
    const comm::CartDecomposition d(ctx, {13, 11, 9}, {0, 0, 0}, {true, false, true});
    int want[3] = {0, 0, 0};
    ASSERT_EQ(MPI_Dims_create(p, 3, want), MPI_SUCCESS);
    // MPI's factors, the largest on z (the slowest axis).
    EXPECT_EQ(d.dims(), (std::array<int, 3>{want[2], want[1], want[0]}));
    check_decomposition(ctx, d);
  }
  {
    // Too few cells on z for the largest factor: it goes to the next slowest axis that has them.
    const comm::CartDecomposition d(ctx, {4, 3, 2}, {0, 0, 0}, {false, false, false});
    if (p == 3) EXPECT_EQ(d.dims(), (std::array<int, 3>{1, 3, 1}));
    if (p == 4) EXPECT_EQ(d.dims(), (std::array<int, 3>{1, 2, 2}));
    check_decomposition(ctx, d);
  }
  {
    const comm::CartDecomposition d(ctx, {13, 11, 9}, {1, 0, 1}, {false, true, false});
    EXPECT_EQ(d.dims(), (std::array<int, 3>{1, p, 1}));
    check_decomposition(ctx, d);
  }
  if (p % 2 == 0) {
    const comm::CartDecomposition d(ctx, {13, 11, 9}, {0, 2, 0}, {false, false, false});
    EXPECT_EQ(d.dims()[1], 2);
    EXPECT_EQ(d.dims()[0] * d.dims()[2], p / 2);
    EXPECT_LE(d.dims()[0], d.dims()[2]);
    check_decomposition(ctx, d);
  }
}

TEST(Cart, PeriodicWrap) {
  auto& ctx = test::context();
  const int p = ctx.size();
  const comm::CartDecomposition d(ctx, {5, 3 * p, 4}, {1, p, 1}, {false, true, false});
  const int c = d.coords()[1];
  EXPECT_EQ(d.neighbor(1, 1), d.rank_of({0, (c + 1) % p, 0}));
  EXPECT_EQ(d.neighbor(1, 0), d.rank_of({0, (c + p - 1) % p, 0}));
  EXPECT_EQ(d.rank_of({0, c + p, 0}), ctx.rank());
  EXPECT_EQ(d.rank_of({0, c - p, 0}), ctx.rank());
  // One rank on a periodic axis is its own neighbour; a non-periodic face has none.
  EXPECT_EQ(d.neighbor(0, 0), MPI_PROC_NULL);
  EXPECT_EQ(d.neighbor(2, 1), MPI_PROC_NULL);
  EXPECT_EQ(d.rank_of({-1, c, 0}), MPI_PROC_NULL);
  const comm::CartDecomposition self(ctx, {5, 3 * p, 4}, {1, p, 1}, {true, true, true});
  EXPECT_EQ(self.neighbor(0, 0), ctx.rank());
  EXPECT_EQ(self.neighbor(0, 1), ctx.rank());
  EXPECT_EQ(self.neighbor(2, 0), ctx.rank());
}

TEST(Cart, RankGridsThatDoNotFitAreInputErrors) {
  auto& ctx = test::context();
  const int p = ctx.size();
  const std::array<bool, 3> per{true, true, true};
  EXPECT_THROW(comm::CartDecomposition(ctx, {8, 8, 8}, {p + 1, 1, 1}, per), InputError);
  EXPECT_THROW(comm::CartDecomposition(ctx, {8, 8, 8}, {-1, 0, 0}, per), InputError);
  EXPECT_THROW(comm::CartDecomposition(ctx, {8, 8, 8}, {0, p + 1, 0}, per), InputError);  // does not divide
  if (p > 1) {
    EXPECT_THROW(comm::CartDecomposition(ctx, {8, 8, 8}, {p, p, 1}, per), InputError);
  }
  try {
    comm::CartDecomposition d(ctx, {8, 8, 8}, {p + 1, 1, 1}, per);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(fmt::format("{}x1x1", p + 1)), std::string::npos) << what;
    EXPECT_NE(what.find(fmt::format("{} rank", p)), std::string::npos) << what;
  }
}

TEST(Cart, TooFewCellsAreInputErrors) {
  auto& ctx = test::context();
  const int p = ctx.size();
  EXPECT_THROW(comm::CartDecomposition(ctx, {8, 0, 8}, {0, 0, 0}, {false, false, false}), InputError);
  if (p > 1) {
    EXPECT_THROW(comm::CartDecomposition(ctx, {8, p - 1, 8}, {1, p, 1}, {false, false, false}), InputError);
    try {
      comm::CartDecomposition d(ctx, {p - 1, 8, 8}, {p, 1, 1}, {true, false, false});
      ADD_FAILURE() << "no InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("along x"), std::string::npos) << e.what();
    }
  }
  // Exactly one cell per rank is fine.
  const comm::CartDecomposition d(ctx, {p, 1, 1}, {p, 1, 1}, {true, false, false});
  EXPECT_EQ(d.local_size(), (comm::Index3{1, 1, 1}));
  EXPECT_EQ(d.local_offset()[0], ctx.rank());
}

}  // namespace
}  // namespace tessera
