// The device transports (staged, mpi, nccl, and what auto picks) on device buffers, run for
// P = 1..4 ranks on a GPU host. A transport this job cannot use (MPI not CUDA-aware, no NCCL,
// ranks sharing a GPU) is skipped with make_transport's reason; without a GPU every test skips.
//
// Data are random with fixed seeds that encode the origin; receive buffers are poisoned before
// each transfer, and bytes past a received message must stay poisoned. All device copies go
// through one non-blocking stream that is also handed to the transport and the ring, so the
// tests also check that transports order their work after the caller's stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "comm/ring_shift.hpp"
#include "comm/transport.hpp"
#include "core/buffer.hpp"
#include "core/error.hpp"
#include "core/partition.hpp"
#include "core/stream.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::comm {
namespace {

using Bytes = std::vector<unsigned char>;
constexpr unsigned char kPoison = 0x5A;

Bytes random_bytes(std::size_t n, std::uint64_t seed) {
  auto gen = test::rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<unsigned char>(gen() >> 56);
  return out;
}

std::size_t block_bytes(std::int64_t n, int parts, int owner) {
  return static_cast<std::size_t>(block_range(n, parts, owner).count);
}

Bytes block_of(std::int64_t n, int parts, int origin, std::uint64_t round) {
  return random_bytes(block_bytes(n, parts, origin), 9000 + 100 * round + static_cast<std::uint64_t>(origin));
}

std::int64_t first_difference(const Bytes& got, const Bytes& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) return static_cast<std::int64_t>(i);
  return -1;
}

std::int64_t first_unpoisoned(const Bytes& b, std::size_t from) {
  for (std::size_t i = from; i < b.size(); ++i)
    if (b[i] != kPoison) return static_cast<std::int64_t>(i);
  return -1;
}

// Device bytes -> host, ordered on `stream`, and waited for.
Bytes download(const void* device, std::size_t bytes, const Stream& stream) {
  Bytes host(bytes, 0);
  copy_bytes_async(host.data(), device, bytes, stream);
  stream.synchronize();
  return host;
}

class DeviceTransport : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    TESSERA_REQUIRE_GPU();
    try {
      choice_ = make_transport(test::context(), Backend::cuda, GetParam());
    } catch (const InputError& e) {
      // make_transport decides collectively, so every rank skips together.
      GTEST_SKIP() << "transport '" << GetParam() << "' is not available in this job: " << e.what();
    }
    ASSERT_NE(choice_.transport, nullptr);
    if (test::context().is_root())
      std::printf("[ transport ] %s -> %s: %s\n", GetParam().c_str(),
                  std::string(to_string(choice_.transport->kind())).c_str(), choice_.reason.c_str());
  }
  Transport& transport() { return *choice_.transport; }
  TransportChoice choice_;
};

TEST_P(DeviceTransport, IsTheRequestedDeviceTransport) {
  EXPECT_EQ(transport().memory(), Memory::device);
  EXPECT_NE(transport().kind(), TransportKind::host);
  if (GetParam() != "auto") {
    EXPECT_EQ(to_string(transport().kind()), GetParam());
  }
  EXPECT_FALSE(choice_.reason.empty());
}

// The ring test of test_ring_shift.cpp on device buffers, P - 1 shifts (or P with full_turn).
void device_rotate_and_check(Transport& transport, std::int64_t n, std::uint64_t round, bool full_turn) {
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  const std::size_t capacity = block_bytes(n, P, 0);
  RingShift ring(ctx, transport, capacity);
  EXPECT_NE(ring.stream(), nullptr) << "a device ring runs on its own stream";
  Stream work;  // stands for the caller's compute stream
  const Bytes mine = block_of(n, P, me, round), poison(capacity, kPoison);
  copy_bytes_async(ring.current(), mine.data(), mine.size(), work);

  std::vector<int> seen(static_cast<std::size_t>(P), 0);
  const int shifts = full_turn ? P : P - 1;
  std::size_t received = capacity;  // bytes written by the last shift (all, before the first)
  for (int step = 0; step <= shifts; ++step) {
    const int holder = ((me - step) % P + P) % P;
    const Bytes expected = block_of(n, P, holder, round);
    const Bytes got = download(ring.current(), capacity, work);
    EXPECT_EQ(first_difference(got, expected), -1)
        << "rank " << me << ", step " << step << ": the block of rank " << holder << " differs";
    if (step > 0) {
      EXPECT_EQ(first_unpoisoned(got, received), -1)
          << "rank " << me << ", step " << step << ": bytes past the " << received << " received were written";
    }
    if (step < P) ++seen[static_cast<std::size_t>(holder)];
    if (step == shifts) break;

    received = block_bytes(n, P, ((holder - 1) % P + P) % P);
    copy_bytes_async(ring.incoming(), poison.data(), capacity, work);
    ring.start(expected.size(), received, work);  // after the poison, on the ring's stream
    ring.finish(work);                            // later work on `work` sees the block
  }
  for (int r = 0; r < P; ++r)
    EXPECT_EQ(seen[static_cast<std::size_t>(r)], 1) << "rank " << me << " saw the block of rank " << r;
}

TEST_P(DeviceTransport, RingShiftSeesEveryBlockOnce) {
  const int P = test::context().size();
  std::vector<std::int64_t> sizes = {static_cast<std::int64_t>(P + test::rng(13)() % 300000)};
  if (P > 1) sizes.push_back(P - 1);  // a rank with nothing to send
  std::uint64_t round = 0;
  for (const std::int64_t n : sizes) {
    SCOPED_TRACE("N = " + std::to_string(n));
    device_rotate_and_check(transport(), n, round++, /*full_turn=*/false);
  }
  device_rotate_and_check(transport(), 5 * P + 3, round, /*full_turn=*/true);
}

// See test_ring_shift.cpp: three messages each to the next rank, the previous rank and this
// rank, told apart by tags only; receives listed in another order than sends.
struct Tagged {
  int sender, receiver, tag;
  std::size_t bytes() const {
    if (tag == 12) return 0;
    return 1 + test::rng(1900 + 31 * static_cast<std::uint64_t>(sender) + tag)() % 70000;
  }
  Bytes content() const {
    return random_bytes(bytes(), 15000 + 1000 * static_cast<std::uint64_t>(sender) + 100 * receiver + tag);
  }
};

std::vector<Tagged> tagged(int me, int P, bool sends) {
  std::vector<Tagged> out;
  const int offsets[3] = {1, -1, 0};
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 3; ++k) {
      if (sends) out.push_back({me, ((me + offsets[d]) % P + P) % P, 10 * d + k});
      else out.push_back({((me - offsets[d]) % P + P) % P, me, 10 * d + k});
    }
  if (!sends) std::reverse(out.begin(), out.end());
  return out;
}

TEST_P(DeviceTransport, MessagesBetweenTheSameRanksPairByTag) {
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  Stream work;
  const auto sends = tagged(me, P, true), recvs = tagged(me, P, false);
  std::vector<DeviceBuffer<unsigned char>> send_buf, recv_buf;
  std::vector<Message> s1, s2, r1, r2;  // two groups in flight at once: tags < 10, then the rest
  for (const Tagged& t : sends) {
    const Bytes data = t.content();
    auto& buf = send_buf.emplace_back(data.size());
    copy_bytes_async(buf.data(), data.data(), data.size(), work);
    (t.tag < 10 ? s1 : s2).push_back({buf.data(), data.size(), t.receiver, t.tag});
  }
  for (const Tagged& t : recvs) {
    const Bytes poison(t.bytes() + 16, kPoison);  // 16 guard bytes
    auto& buf = recv_buf.emplace_back(poison.size());
    copy_bytes_async(buf.data(), poison.data(), poison.size(), work);
    (t.tag < 10 ? r1 : r2).push_back({buf.data(), t.bytes(), t.sender, t.tag});
  }
  auto first = transport().start(s1, r1, work);
  auto second = transport().start(s2, r2, work);
  first->finish();
  second->finish();

  for (std::size_t i = 0; i < recvs.size(); ++i) {
    const Tagged& t = recvs[i];
    const Bytes got = download(recv_buf[i].data(), recv_buf[i].size(), work);
    EXPECT_EQ(first_difference(got, t.content()), -1)
        << "rank " << me << ": message from rank " << t.sender << " with tag " << t.tag;
    EXPECT_EQ(first_unpoisoned(got, t.bytes()), -1)
        << "rank " << me << ": bytes written past the message from rank " << t.sender << " tag " << t.tag;
  }
}

TEST_P(DeviceTransport, ReusedAcrossManyExchanges) {
  // Staging buffers and events are reused: many exchanges of growing and shrinking sizes.
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  const int next = (me + 1) % P, prev = (me - 1 + P) % P;
  Stream work;
  const std::size_t sizes[] = {10, 100000, 3, 250000, 0, 4096, 77777, 1};
  DeviceBuffer<unsigned char> out(250000), in(250000 + 16);
  for (std::size_t round = 0; round < std::size(sizes); ++round) {
    const std::size_t n = sizes[round];
    const Bytes data = random_bytes(n, 30000 + 100 * round + static_cast<std::uint64_t>(me));
    const Bytes poison(in.size(), kPoison);
    copy_bytes_async(out.data(), data.data(), n, work);
    copy_bytes_async(in.data(), poison.data(), poison.size(), work);
    const Message send{out.data(), n, next, 5}, recv{in.data(), n, prev, 5};
    transport().start({&send, 1}, {&recv, 1}, work)->finish();
    const Bytes got = download(in.data(), in.size(), work);
    EXPECT_EQ(first_difference(got, random_bytes(n, 30000 + 100 * round + static_cast<std::uint64_t>(prev))), -1)
        << "rank " << me << ", exchange " << round << " of " << n << " bytes";
    EXPECT_EQ(first_unpoisoned(got, n), -1) << "rank " << me << ", exchange " << round;
  }
}

INSTANTIATE_TEST_SUITE_P(Comm, DeviceTransport, ::testing::Values("staged", "mpi", "nccl", "auto"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace tessera::comm
