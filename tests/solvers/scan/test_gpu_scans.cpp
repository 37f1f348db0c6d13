// Every GPU variant against the CPU reference: all type pairs, both modes, edge and random
// lengths, offsets, unaligned and in-place buffers, the two-phase form, the tile shapes, many
// launches in a row (the look-back's epochs and tile counter), device generation, and one
// length above 2^31 (int32 into int64, and int32 wrapping).
#include <gtest/gtest.h>

#include <cstring>

#include "core/buffer.hpp"
#include "core/stream.hpp"
#include "solvers/scan/cpu/cpu_scan.hpp"
#include "solvers/scan/cuda/device_scan.hpp"
#include "tests/solvers/scan/scan_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::scan::test {
namespace {

template <class P>
struct GpuScan : ::testing::Test {};
TYPED_TEST_SUITE(GpuScan, Pairs);

// Uploads and fills run on the default stream, which the scans' streams do not wait for: the
// helpers finish them before returning.
template <class T>
DeviceBuffer<T> upload(const std::vector<T>& v) {
  DeviceBuffer<T> d(v.size());
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

template <class Out>
DeviceBuffer<Out> poisoned(std::int64_t n) {
  DeviceBuffer<Out> d(static_cast<std::size_t>(n));
  if (n > 0) fill_device_bytes(d.data(), 0xFF, d.bytes());
  synchronize(nullptr);
  return d;
}

TYPED_TEST(GpuScan, EveryVariantMatchesTheCpu) {
  TESSERA_REQUIRE_GPU();
  using In = typename TypeParam::In;
  using Out = typename TypeParam::Out;
  Stream s;
  std::vector<std::unique_ptr<LocalScan<In, Out>>> scans;
  for (Variant v : device_variants()) scans.push_back(make_local_scan<In, Out>(v, s));
  auto lengths = edge_lengths();
  for (auto n : random_lengths(8, 3000000, 21)) lengths.push_back(n);
  for (std::int64_t n : lengths) {
    const auto in = random_input<In>(n, static_cast<std::uint64_t>(n) + 3, 1000000);
    const auto d_in = upload(in);
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      const Out offset = static_cast<Out>(n % 3 == 0 ? 0 : -777);
      const auto ref = reference_scan<In, Out>(in, mode, offset);
      for (auto& scan : scans) {
        auto d_out = poisoned<Out>(n);
        scan->scan(d_in.data(), d_out.data(), n, mode, offset);
        scan->synchronize();
        const auto what = testing::Message() << to_string(scan->variant()) << " " << to_string(mode) << " n=" << n;
        EXPECT_EQ((count_mismatches<In, Out>(download(d_out.data(), n), ref, what.GetString())), 0);
      }
    }
  }
}

TYPED_TEST(GpuScan, TwoPhasesUnalignedAndInPlace) {
  TESSERA_REQUIRE_GPU();
  using In = typename TypeParam::In;
  using Out = typename TypeParam::Out;
  Stream s;
  const std::int64_t n = 1000003;
  const auto in = random_input<In>(n + 1, 8, 1000000);
  const auto d_in = upload(in);
  const std::vector<In> shifted(in.begin() + 1, in.end());
  for (Variant v : device_variants()) {
    auto scan = make_local_scan<In, Out>(v, s);
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      const std::string name(to_string(v));
      // Two phases, as the distributed scan runs them.
      auto d_out = poisoned<Out>(n + 1);
      const wide_t<Out> total = scan->begin(d_in.data(), d_out.data(), n, mode, true);
      const std::vector<In> first(in.begin(), in.begin() + n);
      const auto whole = reference_scan<In, Out>(first, Mode::inclusive, 0);
      if constexpr (std::is_integral_v<Out>)
        EXPECT_EQ(static_cast<Out>(total), whole.at.back().value()) << name;
      else
        EXPECT_NEAR(total, static_cast<double>(whole.at.back().value()), 1e-5 * static_cast<double>(whole.magnitude.back()));
      scan->finish(wide_t<Out>(1234));
      scan->synchronize();
      EXPECT_EQ((count_mismatches<In, Out>(download(d_out.data(), n), reference_scan<In, Out>(first, mode, 1234),
                                          name + " two phases")),
                0);
      // Misaligned by one element: the kernels' scalar paths.
      scan->scan(d_in.data() + 1, d_out.data() + 1, n, mode, Out(5));
      scan->synchronize();
      EXPECT_EQ((count_mismatches<In, Out>(download(d_out.data() + 1, n), reference_scan<In, Out>(shifted, mode, 5),
                                          name + " unaligned")),
                0);
      if constexpr (std::is_same_v<In, Out>) {  // in place
        auto d_data = upload(first);
        scan->scan(d_data.data(), d_data.data(), n, mode, Out(0));
        scan->synchronize();
        EXPECT_EQ((count_mismatches<In, Out>(download(d_data.data(), n), reference_scan<In, Out>(first, mode, 0),
                                            name + " in place")),
                  0);
      }
    }
  }
}

TEST(GpuScanEdges, ManyLaunchesInARow) {
  // Hundreds of look-back launches of changing sizes on one workspace: every epoch and every
  // ticket range must line up, and no tile may read a stale status.
  TESSERA_REQUIRE_GPU();
  Stream s;
  const std::int64_t max_n = (1 << 22) + 5;
  const auto in = random_input<std::int32_t>(max_n, 31, 1000);
  const auto d_in = upload(in);
  auto d_out = poisoned<std::int32_t>(max_n);
  std::vector<std::int32_t> ref(static_cast<std::size_t>(max_n));
  serial_scan(in.data(), ref.data(), max_n, Mode::inclusive, 0);
  for (Variant v : {Variant::lookback, Variant::cub}) {
    auto scan = make_local_scan<std::int32_t, std::int32_t>(v, s);
    std::int64_t bad = 0;
    for (int i = 0; i < 300; ++i) {
      const std::int64_t n = i % 3 == 0 ? max_n : (max_n >> (1 + i % 7)) + i;  // <= max_n
      scan->scan(d_in.data(), d_out.data(), n, Mode::inclusive, 0);
      if (i % 10 == 9 || i == 299) {  // check now and then; the launches in between overlap freely
        scan->synchronize();
        const auto got = download(d_out.data(), n);
        for (std::int64_t j = 0; j < n; ++j) bad += got[static_cast<std::size_t>(j)] != ref[static_cast<std::size_t>(j)];
      }
    }
    EXPECT_EQ(bad, 0) << to_string(v);
  }
}

TEST(GpuScanEdges, LookbackTileShapes) {
  TESSERA_REQUIRE_GPU();
  Stream s;
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{4095}, std::int64_t{12289}, std::int64_t{3000017}}) {
    const auto in = random_input<std::int32_t>(n, 41, 100000);
    const auto d_in = upload(in);
    const auto ref = reference_scan<std::int32_t, std::int32_t>(in, Mode::inclusive, 0);
    for (auto [threads, items] : {std::pair{128, 16}, {128, 24}, {128, 32}, {256, 16}, {256, 24}}) {
      auto scan = make_lookback_int32_shape(threads, items, s);
      ASSERT_TRUE(scan);
      auto d_out = poisoned<std::int32_t>(n);
      scan->scan(d_in.data(), d_out.data(), n, Mode::inclusive, 0);
      scan->synchronize();
      EXPECT_EQ((count_mismatches<std::int32_t, std::int32_t>(download(d_out.data(), n), ref, "shape")), 0)
          << threads << "x" << items << " n=" << n;
    }
  }
  EXPECT_FALSE(make_lookback_int32_shape(64, 7, s));
}

TEST(GpuScanEdges, DeviceGenerationMatchesTheHost) {
  TESSERA_REQUIRE_GPU();
  Stream s;
  Generator g;
  g.seed = 99;
  g.low = -1e6;
  g.high = 1e6;
  const std::int64_t n = 1000003, first = (std::int64_t{1} << 33) + 7;
  std::vector<double> host(n);
  generate_values(host.data(), n, first, g);
  DeviceBuffer<double> d(n);
  generate_device(d.data(), n, first, g, s);
  s.synchronize();
  EXPECT_EQ(download(d.data(), n), host);
}

// Compares out[0..n) (device) with the scan of the generated input, chunk by chunk.
template <class Out>
std::int64_t check_generated(const Out* d_out, std::int64_t n, const Generator& g) {
  const std::int64_t chunk = std::int64_t{1} << 26;
  std::vector<std::int32_t> in(static_cast<std::size_t>(chunk));
  std::vector<Out> got(static_cast<std::size_t>(chunk));
  std::int64_t bad = 0;
  std::uint64_t running = 0;  // wrapping
  for (std::int64_t at = 0; at < n; at += chunk) {
    const std::int64_t c = std::min(chunk, n - at);
    generate_values(in.data(), c, at, g);
    copy_bytes(got.data(), d_out + at, static_cast<std::size_t>(c) * sizeof(Out));
    for (std::int64_t j = 0; j < c; ++j) {
      running += static_cast<std::uint64_t>(static_cast<std::int64_t>(in[static_cast<std::size_t>(j)]));
      bad += got[static_cast<std::size_t>(j)] != static_cast<Out>(static_cast<std::int64_t>(running));
    }
  }
  return bad;
}

TEST(GpuScanEdges, LengthAboveTwoToThe31) {
  // 2^31 + 4099 int32 (8 GiB) into int64 (16 GiB): 64-bit indexing in every kernel and launch.
  TESSERA_REQUIRE_GPU();
  Stream s;
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  Generator g;
  g.seed = 5;
  g.low = 0;
  g.high = 1000;  // positive: the sums pass 2^31 early and reach about 2^40
  DeviceBuffer<std::int32_t> in(static_cast<std::size_t>(n));
  DeviceBuffer<std::int64_t> out(static_cast<std::size_t>(n));
  generate_device(in.data(), n, 0, g, s);
  for (Variant v : {Variant::lookback, Variant::cub, Variant::blelloch_padded}) {
    fill_device_bytes(out.data(), 0xFF, out.bytes());
    synchronize(nullptr);
    auto scan = make_local_scan<std::int32_t, std::int64_t>(v, s);
    scan->scan(in.data(), out.data(), n, Mode::inclusive, 0);
    scan->synchronize();
    EXPECT_EQ(check_generated(out.data(), n, g), 0) << to_string(v) << " int32 -> int64";
  }
  // int32 sums wrapping modulo 2^32, written into the same buffer viewed as int32.
  auto wrap = make_local_scan<std::int32_t, std::int32_t>(Variant::lookback, s);
  auto* out32 = reinterpret_cast<std::int32_t*>(out.data());
  wrap->scan(in.data(), out32, n, Mode::inclusive, 0);
  wrap->synchronize();
  EXPECT_EQ(check_generated(out32, n, g), 0) << "lookback int32 wrapping";
}

}  // namespace
}  // namespace tessera::scan::test
