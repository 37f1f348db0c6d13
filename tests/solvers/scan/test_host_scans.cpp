// The host variants (cpu-serial and cpu/OpenMP) against the serial 64-bit reference: every type
// pair, both modes, edge and random lengths, offsets, negative values, int32 sums that leave
// the 32-bit range, in place, and the two-phase form the distributed scan uses.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>

#include "core/error.hpp"
#include "solvers/scan/backend.hpp"
#include "tests/solvers/scan/scan_test_util.hpp"

namespace tessera::scan::test {
namespace {

template <class P>
struct HostScan : ::testing::Test {};
TYPED_TEST_SUITE(HostScan, Pairs);

template <class Out>
std::vector<Out> poisoned(std::int64_t n) {
  std::vector<Out> v(static_cast<std::size_t>(n));
  if (!v.empty()) std::memset(v.data(), 0xA5, v.size() * sizeof(Out));  // data() may be null at n = 0
  return v;
}

std::vector<std::int64_t> all_lengths() {
  auto lengths = edge_lengths();
  for (auto n : random_lengths(6, 200000, 11)) lengths.push_back(n);
  return lengths;
}

TYPED_TEST(HostScan, MatchesReference) {
  using In = typename TypeParam::In;
  using Out = typename TypeParam::Out;
  omp_set_num_threads(3);  // uneven chunks, also on a 2-core machine
  for (Variant v : {Variant::cpu_serial, Variant::cpu}) {
    auto scan = make_local_scan<In, Out>(v);
    EXPECT_EQ(scan->memory(), Memory::host);
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      for (std::int64_t n : all_lengths()) {
        const auto in = random_input<In>(n, static_cast<std::uint64_t>(n) + 1);
        const Out offset = static_cast<Out>(n % 7 == 0 ? 0 : -12345);
        auto out = poisoned<Out>(n);
        scan->scan(in.data(), out.data(), n, mode, offset);
        const auto what = testing::Message() << to_string(v) << " " << to_string(mode) << " n=" << n;
        EXPECT_EQ((count_mismatches<In, Out>(out, reference_scan<In, Out>(in, mode, offset), what.GetString())), 0);
      }
    }
  }
}

TYPED_TEST(HostScan, TwoPhasesEqualOne) {
  using In = typename TypeParam::In;
  using Out = typename TypeParam::Out;
  const std::int64_t n = 300007;
  const auto in = random_input<In>(n, 5);
  for (Variant v : {Variant::cpu_serial, Variant::cpu}) {
    auto scan = make_local_scan<In, Out>(v);
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      auto out = poisoned<Out>(n);
      const wide_t<Out> total = scan->begin(in.data(), out.data(), n, mode, true);
      const auto ref = reference_scan<In, Out>(in, Mode::inclusive, 0);
      if constexpr (std::is_integral_v<Out>)
        EXPECT_EQ(static_cast<Out>(total), ref.at.back().value());
      else
        EXPECT_NEAR(total, static_cast<double>(ref.at.back().value()), 1e-6 * static_cast<double>(ref.magnitude.back()));
      scan->finish(wide_t<Out>(77));
      EXPECT_EQ((count_mismatches<In, Out>(out, reference_scan<In, Out>(in, mode, 77), "two phases")), 0);
      EXPECT_EQ(scan->begin(in.data(), out.data(), n, mode, false), wide_t<Out>(0));  // total not asked for
    }
  }
}

TEST(HostScanEdges, InPlace) {
  const auto in = random_input<std::int64_t>(100003, 9);
  for (Variant v : {Variant::cpu_serial, Variant::cpu}) {
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      auto data = in;
      make_local_scan<std::int64_t, std::int64_t>(v)->scan(data.data(), data.data(), 100003, mode, 0);
      EXPECT_EQ((count_mismatches<std::int64_t, std::int64_t>(data, reference_scan<std::int64_t, std::int64_t>(in, mode, 0),
                                                             "in place")),
                0);
    }
  }
}

TEST(HostScanEdges, Int32SumsBeyond32BitsInInt64) {
  // 2^20 values near 2^31: the sums leave the int32 range after two elements.
  const std::int64_t n = 1 << 20;
  std::vector<std::int32_t> in(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) in[i] = i % 3 == 0 ? -2000000000 + static_cast<std::int32_t>(i) : 2100000000;
  std::int64_t expected = 0;
  for (auto x : in) expected += x;
  ASSERT_GT(expected, std::int64_t{1} << 40);
  for (Variant v : {Variant::cpu_serial, Variant::cpu}) {
    std::vector<std::int64_t> out(in.size());
    make_local_scan<std::int32_t, std::int64_t>(v)->scan(in.data(), out.data(), n, Mode::inclusive, 0);
    EXPECT_EQ(out.back(), expected);
    // The same sums in int32 wrap modulo 2^32, like the GPU.
    std::vector<std::int32_t> wrapped(in.size());
    make_local_scan<std::int32_t, std::int32_t>(v)->scan(in.data(), wrapped.data(), n, Mode::inclusive, 0);
    EXPECT_EQ(wrapped.back(), static_cast<std::int32_t>(expected));
    EXPECT_NE(static_cast<std::int64_t>(wrapped.back()), expected);
  }
}

TEST(HostScanEdges, DeviceVariantWithoutCudaIsAClearError) {
  if (cuda_compiled()) GTEST_SKIP() << "CUDA build: device variants exist";
  EXPECT_THROW((make_local_scan<std::int32_t, std::int32_t>(Variant::lookback)), InputError);
}

TEST(HostScanEdges, ResolveAuto) {
  EXPECT_EQ(resolve_variant(Variant::automatic, Backend::cpu), Variant::cpu);
  EXPECT_EQ(resolve_variant(Variant::automatic, Backend::cuda), Variant::lookback);
  EXPECT_EQ(resolve_variant(Variant::automatic, Backend::cuda, true), Variant::cub);  // int32 -> int64
  EXPECT_EQ(resolve_variant(Variant::automatic, Backend::cpu, true), Variant::cpu);
  EXPECT_EQ(resolve_variant(Variant::cub, Backend::cuda), Variant::cub);
  for (const auto& name : variant_names()) EXPECT_EQ(to_string(parse_variant(name)), name);
}

}  // namespace
}  // namespace tessera::scan::test
