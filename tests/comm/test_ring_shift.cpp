// RingShift and the host transport (cpu backend), run for P = 1..4 ranks.
//
// Blocks have uneven sizes (block_range of a random N; with N < P some ranks hold nothing) and
// random contents from a seed that encodes the round and the origin rank, so a block that
// arrives from the wrong rank, in the wrong step, or damaged, cannot pass. Receive buffers are
// poisoned before every transfer, and bytes past the received ones must stay poisoned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/ring_shift.hpp"
#include "comm/transport.hpp"
#include "core/error.hpp"
#include "core/partition.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::comm {
namespace {

using Bytes = std::vector<unsigned char>;
constexpr unsigned char kPoison = 0xA5;

Bytes random_bytes(std::size_t n, std::uint64_t seed) {
  auto gen = test::rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<unsigned char>(gen() >> 56);
  return out;
}

std::size_t block_bytes(std::int64_t n, int parts, int owner) {
  return static_cast<std::size_t>(block_range(n, parts, owner).count);
}

// The block that rank `origin` starts round `round` with.
Bytes block_of(std::int64_t n, int parts, int origin, std::uint64_t round) {
  return random_bytes(block_bytes(n, parts, origin), 7000 + 100 * round + static_cast<std::uint64_t>(origin));
}

// Index of the first byte where `got` differs from `want`, or -1.
std::int64_t first_difference(const void* got, const Bytes& want) {
  const auto* g = static_cast<const unsigned char*>(got);
  for (std::size_t i = 0; i < want.size(); ++i)
    if (g[i] != want[i]) return static_cast<std::int64_t>(i);
  return -1;
}

// Index of the first byte in [from, to) of `p` that is not the poison, or -1.
std::int64_t first_unpoisoned(const void* p, std::size_t from, std::size_t to) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = from; i < to; ++i)
    if (b[i] != kPoison) return static_cast<std::int64_t>(i);
  return -1;
}

std::unique_ptr<Transport> host_transport() {
  auto choice = make_transport(test::context(), Backend::cpu, "auto");
  return std::move(choice.transport);
}

// Passes this rank's block of round `round` around the ring: P - 1 shifts (every block seen
// once), or P shifts with `full_turn` (the own block must come home unchanged). Uses EXPECT only:
// an early return on one rank would leave the others waiting in the shift.
void rotate_and_check(RingShift& ring, std::int64_t n, std::uint64_t round, bool full_turn = false) {
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  const Bytes mine = block_of(n, P, me, round);
  ASSERT_LE(block_bytes(n, P, 0), ring.capacity()) << "test set-up: block 0 is the largest";
  if (!mine.empty()) std::memcpy(ring.current(), mine.data(), mine.size());

  std::vector<int> seen(static_cast<std::size_t>(P), 0);
  const int shifts = full_turn ? P : P - 1;
  for (int step = 0; step <= shifts; ++step) {
    const int holder = ((me - step) % P + P) % P;  // whose block current() holds after `step` shifts
    const Bytes expected = block_of(n, P, holder, round);
    EXPECT_EQ(first_difference(ring.current(), expected), -1)
        << "rank " << me << ", round " << round << ", step " << step << ": the block of rank " << holder
        << " (" << expected.size() << " bytes) differs";
    if (step < P) ++seen[static_cast<std::size_t>(holder)];
    if (step == shifts) break;

    const int next_holder = ((holder - 1) % P + P) % P;
    const std::size_t recv = block_bytes(n, P, next_holder);
    if (ring.capacity() > 0) std::memset(ring.incoming(), kPoison, ring.capacity());
    ring.start(expected.size(), recv);
    ring.finish();
    EXPECT_EQ(first_unpoisoned(ring.current(), recv, ring.capacity()), -1)
        << "rank " << me << ", step " << step << ": bytes past the " << recv << " received were written";
  }
  for (int r = 0; r < P; ++r)
    EXPECT_EQ(seen[static_cast<std::size_t>(r)], 1) << "rank " << me << " saw the block of rank " << r;
}

TEST(RingShift, EveryRankSeesEveryBlockOnceInRingOrder) {
  Context& ctx = test::context();
  const int P = ctx.size();
  auto transport = host_transport();
  // Same on every rank: a random N, one with a rank holding nothing (N < P), and all empty.
  std::vector<std::int64_t> sizes = {static_cast<std::int64_t>(P + test::rng(11)() % 5000)};
  if (P > 1) sizes.push_back(P - 1);
  sizes.push_back(0);
  std::uint64_t round = 0;
  for (const std::int64_t n : sizes) {
    SCOPED_TRACE("N = " + std::to_string(n));
    RingShift ring(ctx, *transport, block_bytes(n, P, 0));  // capacity exactly the largest block
    rotate_and_check(ring, n, round++);
  }
}

TEST(RingShift, FullTurnBringsTheOwnBlockHome) {
  Context& ctx = test::context();
  auto transport = host_transport();
  const std::int64_t n = 3 * ctx.size() + 2;
  RingShift ring(ctx, *transport, block_bytes(n, ctx.size(), 0));
  rotate_and_check(ring, n, 42, /*full_turn=*/true);
}

TEST(RingShift, OneRingServesManyRounds) {
  Context& ctx = test::context();
  const int P = ctx.size();
  auto transport = host_transport();
  auto gen = test::rng(23);
  std::vector<std::int64_t> sizes;
  for (int round = 0; round < 5; ++round) sizes.push_back(static_cast<std::int64_t>(gen() % 3000));
  sizes.push_back(P > 1 ? P - 1 : 0);
  const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  RingShift ring(ctx, *transport, block_bytes(largest, P, 0));
  for (std::size_t round = 0; round < sizes.size(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", N = " + std::to_string(sizes[round]));
    rotate_and_check(ring, sizes[round], 100 + round, /*full_turn=*/round % 2 == 1);
  }
}

TEST(RingShift, SizesAboveCapacityThrowAndLeaveTheRingUsable) {
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  auto transport = host_transport();
  RingShift ring(ctx, *transport, 64);
  EXPECT_EQ(ring.capacity(), 64u);
  EXPECT_EQ(ring.stream(), nullptr);
  EXPECT_THROW(ring.start(65, 64), std::length_error);
  EXPECT_THROW(ring.start(64, 65), std::length_error);
  try {
    ring.start(1000, 0);
    ADD_FAILURE() << "no exception for 1000 bytes in a 64-byte ring";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1000"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ring.finish(), std::logic_error) << "finish() without a started shift";

  // Still usable at exactly the capacity.
  const Bytes mine = random_bytes(64, 500 + static_cast<std::uint64_t>(me));
  std::memcpy(ring.current(), mine.data(), 64);
  std::memset(ring.incoming(), kPoison, 64);
  ring.start(64, 64);
  EXPECT_THROW(ring.start(64, 64), std::logic_error) << "a second start() while one is in flight";
  ring.finish();
  const Bytes from_prev = random_bytes(64, 500 + static_cast<std::uint64_t>((me - 1 + P) % P));
  EXPECT_EQ(first_difference(ring.current(), from_prev), -1);
  EXPECT_EQ(first_difference(ring.incoming(), mine), -1) << "the sent block must stay in the other buffer";
}

TEST(Transport, CpuBackendAlwaysGetsHost) {
  Context& ctx = test::context();
  for (const char* requested : {"auto", "staged", "mpi", "nccl"}) {
    auto choice = make_transport(ctx, Backend::cpu, requested);
    ASSERT_NE(choice.transport, nullptr);
    EXPECT_EQ(choice.transport->kind(), TransportKind::host) << requested;
    EXPECT_EQ(choice.transport->memory(), Memory::host) << requested;
    EXPECT_NE(choice.reason.find("host"), std::string::npos) << choice.reason;
  }
  EXPECT_EQ(to_string(TransportKind::host), "host");
  EXPECT_EQ(to_string(TransportKind::staged), "staged");
  EXPECT_EQ(to_string(TransportKind::mpi), "mpi");
  EXPECT_EQ(to_string(TransportKind::nccl), "nccl");
}

TEST(Transport, UnknownTransportIsAnInputError) {
  Context& ctx = test::context();
  EXPECT_THROW(make_transport(ctx, Backend::cpu, "pigeon"), InputError);
  EXPECT_THROW(make_transport(ctx, Backend::cuda, "pigeon"), InputError);
}

TEST(Transport, NcclVersionIsEmptyExactlyWithoutNccl) {
  const std::string v = nccl_version();
  EXPECT_EQ(v.empty(), !nccl_available()) << "'" << v << "'";
  if (!v.empty()) {
    EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
  }
}

TEST(Transport, CudaAwarenessIsAgreedAndExplained) {
  Context& ctx = test::context();
  std::string how;
  const bool aware = cuda_aware_mpi(ctx, &how);
  EXPECT_FALSE(how.empty());
  EXPECT_EQ(allreduce(ctx, aware ? 1 : 0, Op::min), allreduce(ctx, aware ? 1 : 0, Op::max));
}

// Messages of one exchange: to the next rank, the previous rank and this rank itself, three
// of each, told apart by tags only (with P = 2 next and previous are the same rank; with P = 1
// all are self-messages). Sizes and contents depend on (sender, receiver, tag).
struct Tagged {
  int sender, receiver, tag;
  std::size_t bytes() const {
    if (tag == 12) return 0;  // an empty message among the others
    return 1 + test::rng(900 + 31 * static_cast<std::uint64_t>(sender) + tag)() % 700;
  }
  Bytes content() const {
    return random_bytes(bytes(), 5000 + 1000 * static_cast<std::uint64_t>(sender) + 100 * receiver + tag);
  }
};

// Direction d sends to the rank at offset +1, -1 or 0 with tags 10*d + k.
std::vector<Tagged> tagged_sends(int me, int P) {
  std::vector<Tagged> out;
  const int offsets[3] = {1, -1, 0};
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 3; ++k) out.push_back({me, ((me + offsets[d]) % P + P) % P, 10 * d + k});
  return out;
}
std::vector<Tagged> tagged_recvs(int me, int P) {
  std::vector<Tagged> out;
  const int offsets[3] = {1, -1, 0};
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 3; ++k) out.push_back({((me - offsets[d]) % P + P) % P, me, 10 * d + k});
  std::reverse(out.begin(), out.end());  // listed in another order than the sender's
  return out;
}

TEST(Transport, MessagesBetweenTheSameRanksPairByTag) {
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  auto transport = host_transport();
  const auto sends = tagged_sends(me, P), recvs = tagged_recvs(me, P);
  std::vector<Bytes> send_data, recv_data;
  std::vector<Message> send_msgs, recv_msgs;
  for (const Tagged& t : sends) send_data.push_back(t.content());
  for (const Tagged& t : recvs) recv_data.push_back(Bytes(t.bytes() + 16, kPoison));  // 16 guard bytes
  for (std::size_t i = 0; i < sends.size(); ++i)
    send_msgs.push_back({send_data[i].data(), send_data[i].size(), sends[i].receiver, sends[i].tag});
  for (std::size_t i = 0; i < recvs.size(); ++i)
    recv_msgs.push_back({recv_data[i].data(), recvs[i].bytes(), recvs[i].sender, recvs[i].tag});

  // Two groups in flight at once on one transport: tags below 10 first, then the rest.
  const auto low = [](const Message& m) { return m.tag < 10; };
  std::vector<Message> s1, s2, r1, r2;
  for (const Message& m : send_msgs) (low(m) ? s1 : s2).push_back(m);
  for (const Message& m : recv_msgs) (low(m) ? r1 : r2).push_back(m);
  auto first = transport->start(s1, r1, nullptr);
  auto second = transport->start(s2, r2, nullptr);
  first->finish();
  second->finish();

  for (std::size_t i = 0; i < recvs.size(); ++i) {
    const Tagged& t = recvs[i];
    EXPECT_EQ(first_difference(recv_data[i].data(), t.content()), -1)
        << "rank " << me << ": message from rank " << t.sender << " with tag " << t.tag;
    EXPECT_EQ(first_unpoisoned(recv_data[i].data(), t.bytes(), recv_data[i].size()), -1)
        << "rank " << me << ": bytes written past the message from rank " << t.sender << " tag " << t.tag;
  }
}

TEST(Transport, MalformedGroupsThrowBeforeAnythingIsPosted) {
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  auto transport = host_transport();
  Bytes a(8, 1), b(8, kPoison);
  const Message to_self{a.data(), 8, me, 3}, from_self{b.data(), 8, me, 3};
  const Message from_self_other_tag{b.data(), 8, me, 4}, from_self_short{b.data(), 4, me, 3};
  EXPECT_THROW(transport->start({}, {&from_self, 1}, nullptr), std::logic_error) << "receive without its send";
  EXPECT_THROW(transport->start({&to_self, 1}, {}, nullptr), std::logic_error) << "send without its receive";
  EXPECT_THROW(transport->start({&to_self, 1}, {&from_self_other_tag, 1}, nullptr), std::logic_error);
  EXPECT_THROW(transport->start({&to_self, 1}, {&from_self_short, 1}, nullptr), std::length_error);
  const Message to_nowhere{a.data(), 8, P, 0}, bad_tag{a.data(), 8, me, -1};
  EXPECT_THROW(transport->start({&to_nowhere, 1}, {}, nullptr), std::logic_error);
  EXPECT_THROW(transport->start({&bad_tag, 1}, {&bad_tag, 1}, nullptr), std::logic_error);
  EXPECT_EQ(first_unpoisoned(b.data(), 0, b.size()), -1) << "a refused group wrote a receive buffer";

  // The transport still works afterwards.
  const Bytes mine = random_bytes(8, 77 + static_cast<std::uint64_t>(me));
  std::memcpy(a.data(), mine.data(), 8);
  transport->start({&to_self, 1}, {&from_self, 1}, nullptr)->finish();
  EXPECT_EQ(first_difference(b.data(), mine), -1);
}

}  // namespace
}  // namespace tessera::comm
