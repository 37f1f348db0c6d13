// The distributed scan of device-resident blocks on 1..4 ranks (GPUs, or ranks sharing one)
// equals the serial scan bitwise for integers, for every GPU variant and uneven partitions
// with empty ranks; floating point within the tolerance. Both ways of exchanging the block
// totals: host MPI, and (lookback) on the device transport without leaving the stream.
#include <gtest/gtest.h>

#include "core/buffer.hpp"
#include "core/stream.hpp"
#include "solvers/scan/distributed.hpp"
#include "tests/solvers/scan/scan_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::scan::test {
namespace {

template <class In, class Out>
void check_device_distributed(std::int64_t n, std::int64_t range, std::uint64_t seed) {
  auto& ctx = tessera::test::context();
  Stream s;
  const auto global = random_input<In>(n, seed, range);
  const comm::TransportChoice device = comm::make_transport(ctx, Backend::cuda, "auto");
  for (Variant v : device_variants())
  for (comm::Transport* transport : {static_cast<comm::Transport*>(nullptr), device.transport.get()}) {
    auto local = make_local_scan<In, Out>(v, s);
    for (Mode mode : {Mode::inclusive, Mode::exclusive}) {
      const auto ref = reference_scan<In, Out>(global, mode, 0);
      for (const auto& part : partitions(n, ctx.size(), seed + 5)) {
        const Range mine = part[static_cast<std::size_t>(ctx.rank())];
        const std::vector<In> in(global.begin() + mine.begin, global.begin() + mine.end());
        DeviceBuffer<In> d_in(in.size());
        DeviceBuffer<Out> d_out(in.size());
        if (!in.empty()) {
          d_in.upload(in);
          fill_device_bytes(d_out.data(), 0xFF, d_out.bytes());
          synchronize(nullptr);  // the default stream's work, which `s` does not wait for
        }
        const auto result = distributed_scan(ctx, *local, d_in.data(), d_out.data(), mine.count, mode, transport);
        EXPECT_EQ(result.on_device, transport && v == Variant::lookback && ctx.size() > 1);
        std::vector<Out> out(in.size());
        if (!out.empty()) d_out.download(out);
        Reference<In, Out> mine_ref;
        mine_ref.at.assign(ref.at.begin() + mine.begin, ref.at.begin() + mine.end());
        mine_ref.magnitude.assign(ref.magnitude.begin() + mine.begin, ref.magnitude.begin() + mine.end());
        const auto what = testing::Message() << to_string(v) << (transport ? " (totals on the transport)" : "") << " "
                                             << to_string(mode) << " n=" << n << " rank "
                                             << ctx.rank() << " holds [" << mine.begin << ", " << mine.end() << ")";
        EXPECT_EQ((count_mismatches<In, Out>(out, mine_ref, what.GetString())), 0);
      }
    }
  }
}

TEST(GpuDistributed, Int32) {
  TESSERA_REQUIRE_GPU();
  check_device_distributed<std::int32_t, std::int32_t>(1000003, 2000000000, 1);
}
TEST(GpuDistributed, Int32IntoInt64) {
  TESSERA_REQUIRE_GPU();
  check_device_distributed<std::int32_t, std::int64_t>(300007, 2000000000, 2);
}
TEST(GpuDistributed, Int64) {
  TESSERA_REQUIRE_GPU();
  check_device_distributed<std::int64_t, std::int64_t>(300007, std::int64_t{1} << 50, 3);
}
TEST(GpuDistributed, Floats) {
  TESSERA_REQUIRE_GPU();
  check_device_distributed<float, float>(300007, 0, 4);
  check_device_distributed<double, double>(300007, 0, 5);
}
TEST(GpuDistributed, TinyAndEmpty) {
  TESSERA_REQUIRE_GPU();
  for (std::int64_t n : {0, 1, 3}) check_device_distributed<std::int32_t, std::int32_t>(n, 100, 9 + n);
}

}  // namespace
}  // namespace tessera::scan::test
