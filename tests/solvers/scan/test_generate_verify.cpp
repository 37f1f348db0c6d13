// The generated inputs (a pure function of seed and index: the same for any split, within the
// requested range, not constant) and the verification (windows, exact integer and tolerant
// floating-point comparison that still catches a dropped element).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "solvers/scan/cpu/cpu_scan.hpp"
#include "solvers/scan/generate.hpp"
#include "solvers/scan/verify.hpp"

namespace tessera::scan {
namespace {

TEST(Generate, SameValuesWhateverTheSplit) {
  Generator g;
  g.seed = 42;
  g.low = -50;
  g.high = 50;
  const std::int64_t n = 100001;
  std::vector<std::int32_t> whole(n), parts(n);
  generate_values(whole.data(), n, 0, g);
  for (int p = 0; p < 7; ++p) {
    const Range r = block_range(n, 7, p);
    generate_values(parts.data() + r.begin, r.count, r.begin, g);
  }
  EXPECT_EQ(whole, parts);
  std::set<std::int32_t> seen(whole.begin(), whole.end());
  EXPECT_EQ(seen.size(), 101u);  // every value of [-50, 50], both ends included
  EXPECT_EQ(*seen.begin(), -50);
  EXPECT_EQ(*seen.rbegin(), 50);
  g.seed = 43;
  std::vector<std::int32_t> other(n);
  generate_values(other.data(), n, 0, g);
  EXPECT_NE(whole, other);
}

TEST(Generate, RangesAndKinds) {
  Generator g;
  g.low = -1.5;
  g.high = 2.5;
  std::vector<double> d(50000);
  generate_values(d.data(), 50000, 123, g);
  EXPECT_GE(*std::min_element(d.begin(), d.end()), -1.5);
  EXPECT_LT(*std::max_element(d.begin(), d.end()), 2.5);
  EXPECT_LT(*std::min_element(d.begin(), d.end()), -1.4);
  Generator wide;  // int64 near the limits allowed by the deck check (2^62)
  wide.low = -4611686018427387904.0;
  wide.high = 4611686018427387904.0;
  std::vector<std::int64_t> w(10000);
  generate_values(w.data(), 10000, 0, wide);
  EXPECT_LT(*std::min_element(w.begin(), w.end()), -(std::int64_t{1} << 61));
  EXPECT_GT(*std::max_element(w.begin(), w.end()), std::int64_t{1} << 61);
  Generator c;
  c.kind = GeneratorKind::constant;
  c.value = 7;
  std::vector<std::int64_t> k(100);
  generate_values(k.data(), 100, 5, c);
  EXPECT_TRUE(std::all_of(k.begin(), k.end(), [](std::int64_t x) { return x == 7; }));
}

TEST(Verify, WindowsAreLocalSortedDisjointAndCoverTheEnds) {
  const std::int64_t n = 1000000;
  for (int p = 0; p < 3; ++p) {
    const Range block = block_range(n, 3, p);
    const auto w = sample_windows(n, block, 64);
    ASSERT_FALSE(w.empty());
    EXPECT_EQ(w.front().begin, 0);
    EXPECT_EQ(w.back().end(), block.count);
    for (std::size_t i = 0; i < w.size(); ++i) {
      EXPECT_GT(w[i].count, 0);
      EXPECT_LE(w[i].end(), block.count);
      if (i > 0) {
        EXPECT_GT(w[i].begin, w[i - 1].end());
      }
    }
  }
  EXPECT_TRUE(sample_windows(10, Range{3, 0}, 5).empty());  // a rank without elements
  const auto tiny = sample_windows(10, Range{0, 10}, 5);
  ASSERT_EQ(tiny.size(), 1u);
  EXPECT_EQ(tiny[0].count, 10);
}

template <class T>
VerifyReport check(const std::vector<T>& in, const std::vector<T>& out, Mode mode, bool full) {
  const auto n = static_cast<std::int64_t>(in.size());
  auto at = [&](std::int64_t j) { return in[static_cast<std::size_t>(j)]; };
  const auto chunks = reference_chunks<T>(at, n);
  const std::vector<Range> windows = full ? std::vector<Range>{{0, n}} : sample_windows(n, Range{0, n}, 16);
  std::vector<T> got;
  for (const Range& w : windows) got.insert(got.end(), out.begin() + w.begin, out.begin() + w.end());
  return compare_windows<T, T>(at, Range{0, n}, n, mode, ReferenceSum<T>{}, chunks, windows, got.data());
}

TEST(Verify, ExactForIntegersAndCatchesOneWrongElement) {
  const std::int64_t n = 200000;
  std::vector<std::int32_t> in(n);
  Generator g;
  generate_values(in.data(), n, 0, g);
  for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
    std::vector<std::int32_t> out(n);
    serial_scan(in.data(), out.data(), n, mode, 0);
    VerifyReport r = check(in, out, mode, true);
    EXPECT_EQ(r.checked, n);
    EXPECT_EQ(r.mismatches, 0);
    out[123456] += 1;
    r = check(in, out, mode, true);
    EXPECT_EQ(r.mismatches, 1);
    EXPECT_EQ(r.first_index, 123456);
    out[n - 1] += 1;  // the last element is always in the sample
    EXPECT_GE(check(in, out, mode, false).mismatches, 1);
  }
}

TEST(Verify, FloatToleranceAcceptsRoundingButNotAWrongTile) {
  const std::int64_t n = 300000;
  std::vector<float> in(n);
  Generator g;
  g.low = 0.0;  // all positive: the hardest case for rounding, the easiest to hide an error in
  g.high = 1.0;
  generate_values(in.data(), n, 0, g);
  std::vector<float> out(n);
  float naive = 0;  // a plain float running sum: worse rounding than any GPU tree
  for (std::int64_t i = 0; i < 4096; ++i) out[i] = naive += in[i];
  parallel_scan(in.data() + 4096, out.data() + 4096, n - 4096, Mode::inclusive, static_cast<double>(out[4095]));
  EXPECT_EQ(check(in, out, Mode::inclusive, true).mismatches, 0);
  float tile = 0;  // one lookback tile's aggregate missing from everything after it
  for (std::int64_t i = 150000; i < 150000 + 3072; ++i) tile += in[i];
  for (std::int64_t i = 150000 + 3071; i < n; ++i) out[i] -= tile;
  const VerifyReport r = check(in, out, Mode::inclusive, true);
  EXPECT_GT(r.mismatches, 0);
  EXPECT_EQ(r.first_index, 150000 + 3071);
}

TEST(Verify, DoubleCatchesOneDroppedElement) {
  const std::int64_t n = 300000;
  std::vector<double> in(n);
  Generator g;
  g.low = 0.5;
  g.high = 1.0;
  generate_values(in.data(), n, 0, g);
  for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
    std::vector<double> out(n);
    parallel_scan(in.data(), out.data(), n, mode, 0.0);
    EXPECT_EQ(check(in, out, mode, true).mismatches, 0);
    for (std::int64_t i = 200001; i < n; ++i) out[i] -= in[200000];
    const VerifyReport r = check(in, out, mode, true);
    EXPECT_EQ(r.mismatches, n - 200001);
    EXPECT_EQ(r.first_index, 200001);
  }
}

}  // namespace
}  // namespace tessera::scan
