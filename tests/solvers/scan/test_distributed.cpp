// The distributed scan on P ranks equals the serial scan of the whole sequence: bitwise for
// integers (also when int32 sums wrap), within the tolerance for floating point, for uneven
// blocks, ranks holding nothing (first, middle and last), n < P and n = 0.
#include <gtest/gtest.h>

#include "comm/collectives.hpp"
#include "core/partition.hpp"
#include "solvers/scan/distributed.hpp"
#include "tests/solvers/scan/scan_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::scan::test {
namespace {

template <class In, class Out>
void check_distributed(std::int64_t n, std::int64_t range, std::uint64_t seed) {
  auto& ctx = tessera::test::context();
  const auto global = random_input<In>(n, seed, range);
  for (Variant v : {Variant::cpu, Variant::cpu_serial}) {
    auto local = make_local_scan<In, Out>(v);
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      const auto ref = reference_scan<In, Out>(global, mode, 0);
      for (const auto& part : partitions(n, ctx.size(), seed + 17)) {
        const Range mine = part[static_cast<std::size_t>(ctx.rank())];
        const std::vector<In> in(global.begin() + mine.begin, global.begin() + mine.end());
        std::vector<Out> out(in.size(), static_cast<Out>(-99));
        const auto result = distributed_scan(ctx, *local, in.data(), out.data(), mine.count, mode);
        Reference<In, Out> mine_ref;
        mine_ref.at.assign(ref.at.begin() + mine.begin, ref.at.begin() + mine.end());
        mine_ref.magnitude.assign(ref.magnitude.begin() + mine.begin, ref.magnitude.begin() + mine.end());
        const auto what = testing::Message() << to_string(v) << " " << to_string(mode) << " n=" << n << " rank "
                                             << ctx.rank() << " holds [" << mine.begin << ", " << mine.end() << ")";
        EXPECT_EQ((count_mismatches<In, Out>(out, mine_ref, what.GetString())), 0);
        if (ctx.rank() == 0) {
          EXPECT_EQ(result.offset, wide_t<Out>(0));
        }
      }
    }
  }
}

TEST(Distributed, Int32) { check_distributed<std::int32_t, std::int32_t>(100003, 1000, 1); }
TEST(Distributed, Int32Wrapping) { check_distributed<std::int32_t, std::int32_t>(50001, 2000000000, 2); }
TEST(Distributed, Int32IntoInt64) { check_distributed<std::int32_t, std::int64_t>(50001, 2000000000, 3); }
TEST(Distributed, Int64) { check_distributed<std::int64_t, std::int64_t>(70001, std::int64_t{1} << 50, 4); }
TEST(Distributed, Float32) { check_distributed<float, float>(60013, 0, 5); }
TEST(Distributed, Float64) { check_distributed<double, double>(60013, 0, 6); }

TEST(Distributed, TinyAndEmpty) {
  for (std::int64_t n : {0, 1, 2, 3, 5}) check_distributed<std::int64_t, std::int64_t>(n, 100, 7 + n);
}

TEST(Distributed, OffsetsAreTheExclusiveScanOfTotals) {
  auto& ctx = tessera::test::context();
  const std::int64_t mine = 1000 + 10 * ctx.rank();
  std::vector<std::int32_t> in(static_cast<std::size_t>(mine), 2);
  std::vector<std::int32_t> out(in.size());
  auto local = make_local_scan<std::int32_t, std::int32_t>(Variant::cpu);
  const auto r = distributed_scan(ctx, *local, in.data(), out.data(), mine, Mode::inclusive);
  std::int64_t expected = 0;
  for (int q = 0; q < ctx.rank(); ++q) expected += 2 * (1000 + 10 * q);
  EXPECT_EQ(r.offset, expected);
  EXPECT_EQ(out.back(), expected + 2 * mine);
}

}  // namespace
}  // namespace tessera::scan::test
