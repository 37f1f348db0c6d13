// Every look-back candidate (the policies `tessera bench scan` compares when
// TESSERA_BENCH_SCAN_LOOKBACK is set) against the CPU reference, for each element type that has
// candidates: edge lengths, every candidate tile size +-1 and its multiples, random lengths,
// more tiles than a persistent grid holds, both modes and offsets; unaligned (the bulk engines'
// fallback), in-place (bulk copies into the buffer they read) and two-phase calls; many
// launches in a row (epochs, and the tickets persistent grids consume); one workspace shared
// by candidates of different tile-state layouts; and the device comparison the benchmark uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/buffer.hpp"
#include "core/stream.hpp"
#include "solvers/scan/cpu/cpu_scan.hpp"
#include "solvers/scan/cuda/kernels.hpp"
#include "solvers/scan/cuda/device_scan.hpp"
#include "tests/solvers/scan/scan_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::scan::test {
namespace {

using CandidateTypes = ::testing::Types<std::int32_t, std::int64_t, float, double>;

template <class T>
struct Candidates : ::testing::Test {};
TYPED_TEST_SUITE(Candidates, CandidateTypes);

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& v) {
  DeviceBuffer<T> d(std::max<std::size_t>(v.size(), 1));
  if (!v.empty()) d.upload(v);
  synchronize(nullptr);
  return d;
}

template <class T>
std::vector<T> download(const T* d, std::int64_t n) {
  std::vector<T> h(static_cast<std::size_t>(n));
  if (n > 0) copy_bytes(h.data(), d, h.size() * sizeof(T));
  return h;
}

template <class T>
void poison(T* d, std::int64_t n) {
  if (n > 0) fill_device_bytes(d, 0xFF, static_cast<std::size_t>(n) * sizeof(T));
  synchronize(nullptr);
}

template <class T>
std::vector<std::unique_ptr<LocalScan<T, T>>> all_candidates(stream_t s) {
  std::vector<std::unique_ptr<LocalScan<T, T>>> scans;
  for (const auto& name : lookback_candidate_names<T>()) {
    scans.push_back(make_lookback_candidate<T>(name, s));
    EXPECT_TRUE(scans.back()) << name;
  }
  return scans;
}

// Tile sizes of the candidates (threads x items per thread) +-1, and three tiles +-1.
std::vector<std::int64_t> tile_lengths() {
  std::vector<std::int64_t> out;
  for (std::int64_t tile : {2048, 3072, 4096, 6144, 8192, 16384})
    for (std::int64_t n : {tile - 1, tile, tile + 1, 3 * tile - 1, 3 * tile + 1}) out.push_back(n);
  return out;
}

TYPED_TEST(Candidates, MatchTheCpu) {
  TESSERA_REQUIRE_GPU();
  using T = TypeParam;
  Stream s;
  const auto names = lookback_candidate_names<T>();
  ASSERT_FALSE(names.empty());
  auto scans = all_candidates<T>(s);
  auto lengths = edge_lengths();
  for (auto n : tile_lengths()) lengths.push_back(n);
  for (auto n : random_lengths(6, 3000000, 77)) lengths.push_back(n);
  for (std::int64_t n : lengths) {
    const auto in = random_input<T>(n, static_cast<std::uint64_t>(n) + 11, 1000000);
    const auto d_in = upload(in);
    DeviceBuffer<T> d_out(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      const T offset = static_cast<T>(n % 2 == 0 ? 0 : -777);
      const auto ref = reference_scan<T, T>(in, mode, offset);
      for (std::size_t c = 0; c < scans.size(); ++c) {
        poison(d_out.data(), n);
        scans[c]->scan(d_in.data(), d_out.data(), n, mode, offset);
        scans[c]->synchronize();
        const auto what = testing::Message() << names[c] << " " << to_string(mode) << " n=" << n;
        EXPECT_EQ((count_mismatches<T, T>(download(d_out.data(), n), ref, what.GetString())), 0);
      }
    }
  }
}

TYPED_TEST(Candidates, MoreTilesThanResidentBlocks) {
  // 2^24 + 12345 elements: thousands of tiles, so persistent blocks loop and take tickets ahead.
  TESSERA_REQUIRE_GPU();
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) GTEST_SKIP() << "integers suffice here (bitwise, exact reference)";
  Stream s;
  const auto names = lookback_candidate_names<T>();
  auto scans = all_candidates<T>(s);
  const std::int64_t n = (std::int64_t{1} << 24) + 12345;
  const auto in = random_input<T>(n, 5, 1000000);
  const auto d_in = upload(in);
  DeviceBuffer<T> d_out(static_cast<std::size_t>(n));
  for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
    std::vector<T> ref(static_cast<std::size_t>(n));
    serial_scan(in.data(), ref.data(), n, mode, wide_t<T>(-5));
    for (std::size_t c = 0; c < scans.size(); ++c) {
      poison(d_out.data(), n);
      scans[c]->scan(d_in.data(), d_out.data(), n, mode, T(-5));
      scans[c]->synchronize();
      const auto got = download(d_out.data(), n);
      std::int64_t bad = 0, first = -1;
      for (std::int64_t i = 0; i < n; ++i)
        if (got[static_cast<std::size_t>(i)] != ref[static_cast<std::size_t>(i)] && bad++ == 0) first = i;
      EXPECT_EQ(bad, 0) << names[c] << " " << to_string(mode) << ": first difference at " << first;
    }
  }
}

TYPED_TEST(Candidates, UnalignedInPlaceAndTwoPhases) {
  TESSERA_REQUIRE_GPU();
  using T = TypeParam;
  Stream s;
  const auto names = lookback_candidate_names<T>();
  auto scans = all_candidates<T>(s);
  for (std::int64_t n : {std::int64_t{1000003}, std::int64_t{3 * 16384 + 5}}) {
    const auto in = random_input<T>(n + 1, 8, 1000000);
    const auto d_in = upload(in);
    const std::vector<T> first(in.begin(), in.begin() + n);
    const std::vector<T> shifted(in.begin() + 1, in.end());
    DeviceBuffer<T> d_out(static_cast<std::size_t>(n + 1));
    for (std::size_t c = 0; c < scans.size(); ++c) {
      auto& scan = *scans[c];
      for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
        const std::string name = names[c] + " " + std::string(to_string(mode)) + " n=" + std::to_string(n);
        // Misaligned by one element: the scalar paths (the bulk engines fall back to registers).
        poison(d_out.data(), n + 1);
        scan.scan(d_in.data() + 1, d_out.data() + 1, n, mode, T(5));
        scan.synchronize();
        EXPECT_EQ((count_mismatches<T, T>(download(d_out.data() + 1, n), reference_scan<T, T>(shifted, mode, 5),
                                          name + " unaligned")),
                  0);
        // In place.
        auto d_data = upload(first);
        scan.scan(d_data.data(), d_data.data(), n, mode, T(0));
        scan.synchronize();
        EXPECT_EQ((count_mismatches<T, T>(download(d_data.data(), n), reference_scan<T, T>(first, mode, 0),
                                          name + " in place")),
                  0);
        // Two phases, as the distributed scan runs them.
        poison(d_out.data(), n);
        (void)scan.begin(d_in.data(), d_out.data(), n, mode, true);
        scan.finish(wide_t<T>(1234));
        scan.synchronize();
        EXPECT_EQ((count_mismatches<T, T>(download(d_out.data(), n), reference_scan<T, T>(first, mode, 1234),
                                          name + " two phases")),
                  0);
      }
    }
  }
}

TYPED_TEST(Candidates, ManyLaunchesInARow) {
  // Launches of changing sizes on one workspace, overlapping freely: every epoch and every
  // ticket range (tiles, or tiles + grid for persistent blocks) must line up.
  TESSERA_REQUIRE_GPU();
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) GTEST_SKIP() << "integers suffice here (bitwise, exact reference)";
  Stream s;
  const auto names = lookback_candidate_names<T>();
  auto scans = all_candidates<T>(s);
  const std::int64_t max_n = (1 << 21) + 5;
  const auto in = random_input<T>(max_n, 31, 1000);
  const auto d_in = upload(in);
  DeviceBuffer<T> d_out(static_cast<std::size_t>(max_n));
  std::vector<T> ref(static_cast<std::size_t>(max_n));
  serial_scan(in.data(), ref.data(), max_n, Mode::inclusive, wide_t<T>(0));
  for (std::size_t c = 0; c < scans.size(); ++c) {
    std::int64_t bad = 0;
    for (int i = 0; i < 60; ++i) {
      const std::int64_t n = i % 3 == 0 ? max_n : (max_n >> (1 + i % 11)) + i;  // from 1029 to max_n
      scans[c]->scan(d_in.data(), d_out.data(), n, Mode::inclusive, T(0));
      if (i % 10 == 9) {
        scans[c]->synchronize();
        const auto got = download(d_out.data(), n);
        for (std::int64_t j = 0; j < n; ++j) bad += got[static_cast<std::size_t>(j)] != ref[static_cast<std::size_t>(j)];
      }
    }
    EXPECT_EQ(bad, 0) << names[c];
  }
}

TYPED_TEST(Candidates, OneWorkspaceForAll) {
  // Candidates of different tile-state layouts (int64: split and packed16) in turn on one
  // workspace: a change of layout must clear what the other left.
  TESSERA_REQUIRE_GPU();
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) GTEST_SKIP() << "integers suffice here (bitwise, exact reference)";
  Stream s;
  const auto names = lookback_candidate_names<T>();
  gpu::LookbackWorkspace ws;
  const std::int64_t n = 300007;
  const auto in = random_input<T>(n, 12, 1000000);
  const auto d_in = upload(in);
  DeviceBuffer<T> d_out(static_cast<std::size_t>(n));
  std::vector<T> ref(static_cast<std::size_t>(n));
  serial_scan(in.data(), ref.data(), n, Mode::inclusive, wide_t<T>(7));
  for (int round = 0; round < 2; ++round) {
    for (const auto& name : names) {
      poison(d_out.data(), n);
      ASSERT_TRUE(gpu::lookback_candidate_scan<T>(name, d_in.data(), d_out.data(), n, Mode::inclusive, T(7), ws, s));
      s.synchronize();
      EXPECT_EQ(download(d_out.data(), n), ref) << name << " round " << round;
    }
  }
  EXPECT_FALSE(gpu::lookback_candidate_scan<T>("no-such-candidate", d_in.data(), d_out.data(), n, Mode::inclusive,
                                               T(0), ws, s));
  EXPECT_FALSE(make_lookback_candidate<T>("no-such-candidate", s));
}

TEST(CandidateNames, AreUniqueAndIncludeTheDefault) {
  // The names say the policy (lookback_candidates.cuh); the default policy is one of them, so the
  // benchmark and these tests cover it.
  const std::vector<std::pair<std::vector<std::string>, std::string>> lists = {
      {lookback_candidate_names<std::int32_t>(), gpu::lookback_default_name<std::int32_t>()},
      {lookback_candidate_names<std::int64_t>(), gpu::lookback_default_name<std::int64_t>()},
      {lookback_candidate_names<float>(), gpu::lookback_default_name<float>()},
      {lookback_candidate_names<double>(), gpu::lookback_default_name<double>()}};
  for (const auto& [names, default_name] : lists) {
    ASSERT_FALSE(names.empty());
    EXPECT_NE(std::find(names.begin(), names.end(), default_name), names.end()) << default_name;
    auto sorted = names;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "duplicate candidate name";
    for (const auto& n : names) EXPECT_EQ(n.find(','), std::string::npos) << n;  // the env var splits at commas
  }
}

TEST(CandidateCompare, CountsBitwiseDifferences) {
  TESSERA_REQUIRE_GPU();
  Stream s;
  const std::int64_t n = 1000003;
  auto a = random_input<std::int64_t>(n, 3, 1000);
  auto b = a;
  const auto d_a = upload(a);
  EXPECT_EQ(count_device_differences(d_a.data(), upload(b).data(), n, s), 0);
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{4097}, n - 1}) b[static_cast<std::size_t>(i)] ^= 1;
  EXPECT_EQ(count_device_differences(d_a.data(), upload(b).data(), n, s), 3);
  std::vector<float> x{0.0f, 1.0f}, y{-0.0f, 1.0f};  // bitwise: -0 differs from 0
  EXPECT_EQ(count_device_differences(upload(x).data(), upload(y).data(), 2, s), 1);
}

}  // namespace
}  // namespace tessera::scan::test
