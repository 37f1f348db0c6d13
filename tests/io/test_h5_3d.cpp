// Distributed 3D datasets over a CartDecomposition: ghosted, padded local arrays written with
// a memory hyperslab and read back under another decomposition and layout; the axis order on
// disk is (z, y, x) with x fastest.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "comm/cart.hpp"
#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;

// The value of global cell (i, j, k): a function of its linear index in file order.
template <class T>
T cell_value(std::uint64_t seed, const Index3& g, std::int64_t i, std::int64_t j, std::int64_t k) {
  return test::value_at<T>(seed, (k * g[1] + j) * g[0] + i);
}

template <class T>
constexpr T poison() {
  if constexpr (std::is_floating_point_v<T>) return T(-12345.5);
  else return T(0x5A);
}

template <class T>
std::vector<T> fill_local(std::uint64_t seed, const Box3& box, const Strided3& mem) {
  std::vector<T> local(static_cast<std::size_t>(mem.elements()), poison<T>());
  for (std::int64_t k = 0; k < box.size[2]; ++k)
    for (std::int64_t j = 0; j < box.size[1]; ++j)
      for (std::int64_t i = 0; i < box.size[0]; ++i)
        local[static_cast<std::size_t>(mem.index(i, j, k))] =
            cell_value<T>(seed, box.global, box.offset[0] + i, box.offset[1] + j, box.offset[2] + k);
  return local;
}

// Checks the box's cells hold their values and every other element still holds the poison.
template <class T>
void expect_local(const std::vector<T>& local, std::uint64_t seed, const Box3& box, const Strided3& mem) {
  std::vector<char> inside(local.size(), 0);
  for (std::int64_t k = 0; k < box.size[2]; ++k)
    for (std::int64_t j = 0; j < box.size[1]; ++j)
      for (std::int64_t i = 0; i < box.size[0]; ++i) {
        const auto at = static_cast<std::size_t>(mem.index(i, j, k));
        inside[at] = 1;
        const T want = cell_value<T>(seed, box.global, box.offset[0] + i, box.offset[1] + j, box.offset[2] + k);
        ASSERT_TRUE(test::same_bits(local[at], want)) << "cell " << i << "," << j << "," << k << " of the box";
      }
  for (std::size_t e = 0; e < local.size(); ++e)
    if (!inside[e]) {
      ASSERT_TRUE(test::same_bits(local[e], poison<T>())) << "ghost/padding element " << e << " written";
    }
}

template <class T>
void round_trip(std::array<int, 3> write_dims, std::array<int, 3> read_dims, const WriteOptions3D& opts) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const Index3 global{9, 6, 5};  // (x, y, z)
  const std::uint64_t seed = 77;
  {
    comm::CartDecomposition d(ctx, global, write_dims, {false, false, false});
    const Box3 box = box_of(d);
    const Strided3 mem = Strided3::ghosted(box.size, 2, box.size[0] + 4 + 3, box.size[1] + 4 + 1);  // padded
    const auto local = fill_local<T>(seed, box, mem);
    File f = File::create(ctx, dir / "f.h5");
    write_3d<T>(f.root(), "fields/E", local, box, mem, opts);
  }
  File f = File::open(ctx, dir / "f.h5");
  const Group root = f.root();
  EXPECT_EQ(dataset_extent(root, "fields/E"), (std::vector<std::int64_t>{global[2], global[1], global[0]}));

  // Another decomposition, another ghost width, no padding.
  comm::CartDecomposition d(ctx, global, read_dims, {false, false, false});
  const Box3 box = box_of(d);
  const Strided3 mem = Strided3::ghosted(box.size, 1);
  std::vector<T> local(static_cast<std::size_t>(mem.elements()), poison<T>());
  read_3d<T>(root, "fields/E", local, box, mem);
  expect_local(local, seed, box, mem);

  // The whole array, dense, on every rank: the file is (z, y, x) with x fastest.
  const Box3 all{global, {0, 0, 0}, global};
  std::vector<T> dense(static_cast<std::size_t>(all.volume()), poison<T>());
  read_3d<T>(root, "fields/E", dense, all, Strided3::dense(global));
  for (std::int64_t k = 0; k < global[2]; ++k)
    for (std::int64_t j = 0; j < global[1]; ++j)
      for (std::int64_t i = 0; i < global[0]; ++i)
        ASSERT_TRUE(test::same_bits(dense[static_cast<std::size_t>((k * global[1] + j) * global[0] + i)],
                                    cell_value<T>(seed, global, i, j, k)));
}

TEST(Distributed3D, GhostedPaddedArraysRoundTripAcrossDecompositions) {
  const int p = context().size();
  round_trip<double>({0, 0, 0}, {1, 1, p}, {});
  round_trip<double>({p, 1, 1}, {0, 0, 0}, {});
}

TEST(Distributed3D, ChunkedFloatAndIntegerFields) {
  const int p = context().size();
  round_trip<float>({1, p, 1}, {p, 1, 1}, {.chunk = {4, 3, 2}});
  round_trip<std::int32_t>({0, 0, 0}, {1, p, 1}, {.chunk = {100, 100, 100}});  // clamped to the extent
}

TEST(Distributed3D, ReadingWithTheWrongGlobalShapeIsRefusedOnEveryRank) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const Index3 global{4, 3, 2};
  comm::CartDecomposition d(ctx, global, {0, 0, 0}, {false, false, false});
  const Box3 box = box_of(d);
  const auto local = fill_local<double>(3, box, Strided3::dense(box.size));
  File f = File::create(ctx, dir / "g.h5");
  write_3d<double>(f.root(), "E", local, box, Strided3::dense(box.size));
  Box3 wrong = box;
  wrong.global = {3, 4, 2};  // x and y swapped
  std::vector<double> back(local.size());
  const std::string msg = test::thrown_message<InputError>(
      [&] { read_3d<double>(f.root(), "E", back, wrong, Strided3::dense(box.size)); });
  TESSERA_EXPECT_CONTAINS(msg, "has extent [2, 3, 4], expected [2, 4, 3]");
}

}  // namespace
}  // namespace tessera::io
