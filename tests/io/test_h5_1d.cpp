// Distributed 1D datasets: every element type, written on P ranks with an uneven partition
// and read back with every partition over Q = 1..4 readers (simulated on the P ranks), plus
// ranks that hold nothing; and (N, C) row blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/partition.hpp"
#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;
using test::value_at;

// An uneven partition of n over the ranks: rank r gets a share proportional to r + 1.
Range uneven_range(std::int64_t n, int ranks, int r) {
  const std::int64_t weight_total = static_cast<std::int64_t>(ranks) * (ranks + 1) / 2;
  const std::int64_t before = static_cast<std::int64_t>(r) * (r + 1) / 2;
  const std::int64_t begin = n * before / weight_total;
  const std::int64_t end = n * (before + r + 1) / weight_total;
  return {begin, end - begin};
}

template <class T>
std::vector<T> values(std::uint64_t seed, Range r) {
  std::vector<T> out(static_cast<std::size_t>(r.count));
  for (std::int64_t i = 0; i < r.count; ++i) out[static_cast<std::size_t>(i)] = value_at<T>(seed, r.begin + i);
  return out;
}

// Every partition of n over Q readers, with the Q virtual readers dealt round-robin over the
// P ranks; each round is one collective read (ranks without a reader in it read nothing).
template <class T>
void expect_readable_by_any_partition(const Group& g, const std::string& name, std::int64_t n, std::uint64_t seed) {
  auto& ctx = context();
  for (int q_total = 1; q_total <= 4; ++q_total) {
    const int rounds = (q_total + ctx.size() - 1) / ctx.size();
    for (int round = 0; round < rounds; ++round) {
      const int q = round * ctx.size() + ctx.rank();
      const Range r = q < q_total ? block_range(n, q_total, q) : Range{0, 0};
      const std::vector<T> got = read_1d<T>(g, name, r.begin, r.count);
      const std::vector<T> want = values<T>(seed, r);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_TRUE(test::same_bits(got[i], want[i]))
            << name << " Q=" << q_total << " element " << r.begin + static_cast<std::int64_t>(i);
    }
  }
}

template <class T>
class Distributed1D : public ::testing::Test {};

using ElementTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                                      std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(Distributed1D, ElementTypes);

TYPED_TEST(Distributed1D, WrittenOnPRanksReadsBackOnAnyPartition) {
  using T = TypeParam;
  auto& ctx = context();
  test::TempDir dir(ctx);
  const std::int64_t n = 1013;
  const std::uint64_t seed = 11 + sizeof(T) + std::is_signed_v<T> + 3 * std::is_floating_point_v<T>;
  {
    File f = File::create(ctx, dir / "a.h5");
    const Range mine = uneven_range(n, ctx.size(), ctx.rank());
    const auto local = values<T>(seed, mine);
    write_1d<T>(f.root(), "data/contiguous", local, mine.begin, n);
    write_1d<T>(f.root(), "data/chunked", local, mine.begin, n, {.chunk = 100});
    f.close();
  }
  File f = File::open(ctx, dir / "a.h5");
  const Group root = f.root();
  EXPECT_EQ(dataset_element_type(root, "data/contiguous"), element_type_of<T>());
  EXPECT_EQ(dataset_extent(root, "data/contiguous"), std::vector<std::int64_t>{n});
  expect_readable_by_any_partition<T>(root, "data/contiguous", n, seed);
  expect_readable_by_any_partition<T>(root, "/data/chunked", n, seed);
}

TEST(Distributed1DEdge, RanksWithNothingTakePartAndEmptyDatasetsWork) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  {
    File f = File::create(ctx, dir / "b.h5");
    // 2 elements: with 3 or 4 ranks, some ranks hold none.
    const Range mine = block_range(2, ctx.size(), ctx.rank());
    write_1d<double>(f.root(), "tiny", values<double>(5, mine), mine.begin, 2);
    write_1d<double>(f.root(), "empty", std::span<const double>(), 0, 0);
    // Only the last rank holds all of it.
    const bool last = ctx.rank() == ctx.size() - 1;
    const auto all = values<std::int64_t>(6, {0, 50});
    write_1d<std::int64_t>(f.root(), "one_writer", last ? std::span<const std::int64_t>(all) : std::span<const std::int64_t>(),
                           0, 50);
  }
  File f = File::open(ctx, dir / "b.h5");
  expect_readable_by_any_partition<double>(f.root(), "tiny", 2, 5);
  expect_readable_by_any_partition<std::int64_t>(f.root(), "one_writer", 50, 6);
  EXPECT_EQ(dataset_extent(f.root(), "empty"), std::vector<std::int64_t>{0});
  EXPECT_TRUE(read_1d<double>(f.root(), "empty", 0, 0).empty());
}

TEST(Distributed1DEdge, RewritingAnExistingDatasetOverwritesIt) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const std::int64_t n = 64;
  const Range mine = block_range(n, ctx.size(), ctx.rank());
  {
    File f = File::create(ctx, dir / "c.h5");
    write_1d<float>(f.root(), "x", values<float>(1, mine), mine.begin, n);
    write_1d<float>(f.root(), "x", values<float>(2, mine), mine.begin, n);
    // A different extent or type is refused, on every rank.
    const std::string msg = test::thrown_message<InputError>(
        [&] { write_1d<double>(f.root(), "x", values<double>(2, mine), mine.begin, n); });
    TESSERA_EXPECT_CONTAINS(msg, "exists as float32 [64]");
  }
  File f = File::open(ctx, dir / "c.h5");
  expect_readable_by_any_partition<float>(f.root(), "x", n, 2);
}

// (N, 3) row blocks (particle coordinates): written on P ranks with an uneven partition of the
// rows, read back by every rank in any row range; a dataset of another width is refused.
TEST(DistributedRows, RowBlocksRoundTripAndTheWidthIsChecked) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const std::int64_t rows = 337, columns = 3;
  const Range mine = uneven_range(rows, ctx.size(), ctx.rank());
  {
    File f = File::create(ctx, dir / "r.h5");
    const auto local = values<double>(21, {mine.begin * columns, mine.count * columns});
    write_rows<double>(f.root(), "PartType1/Coordinates", local, columns, mine.begin, rows);
    write_1d<double>(f.root(), "flat", local, mine.begin * columns, rows * columns);
  }
  File f = File::open(ctx, dir / "r.h5");
  EXPECT_EQ(dataset_extent(f.root(), "PartType1/Coordinates"), (std::vector<std::int64_t>{rows, columns}));
  for (int q_total = 1; q_total <= 4; ++q_total) {
    const Range r = block_range(rows, q_total, ctx.rank() % q_total);
    const std::vector<double> got = read_rows<double>(f.root(), "PartType1/Coordinates", r.begin, r.count, columns);
    const std::vector<double> want = values<double>(21, {r.begin * columns, r.count * columns});
    ASSERT_EQ(got, want) << "rows " << r.begin << " + " << r.count;
  }
  const std::string wide = test::thrown_message<InputError>(
      [&] { (void)read_rows<double>(f.root(), "PartType1/Coordinates", 0, 1, 4); });
  TESSERA_EXPECT_CONTAINS(wide, "expected (N, 4)");
  const std::string flat = test::thrown_message<InputError>([&] { (void)read_rows<double>(f.root(), "flat", 0, 1, 3); });
  TESSERA_EXPECT_CONTAINS(flat, "has extent [1011]");
  const std::string beyond = test::thrown_message<InputError>(
      [&] { (void)read_rows<double>(f.root(), "PartType1/Coordinates", rows - 1, 2, columns); });
  TESSERA_EXPECT_CONTAINS(beyond, "global extent");
}

TEST(Distributed1DEdge, StringDatasetsRoundTrip) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const std::string text = "[run]\nsolver = \"fdtd\"\n# µ-strip, ε_r = 4.4\n";
  {
    File f = File::create(ctx, dir / "s.h5");
    write_string(f.root(), "deck", text);
    write_string(f.root(), "nested/empty", "");
  }
  File f = File::open(ctx, dir / "s.h5");
  EXPECT_EQ(read_string(f.root(), "deck"), text);
  EXPECT_EQ(read_string(f.root(), "nested/empty"), "");
  EXPECT_EQ(dataset_element_type(f.root(), "deck"), ElementType::string);
}

}  // namespace
}  // namespace tessera::io
