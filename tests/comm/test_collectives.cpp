// Host collectives over P ranks: 64-bit values that overflow 32 bits, rank 0's exscan defined
// as zero, alltoallv with uneven (and empty) counts, broadcast of text.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "comm/collectives.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using tessera::test::context;

namespace {
// A value per rank that needs all 64 bits (so a 32-bit path would fail).
std::int64_t big_value(int rank) { return (std::int64_t{3} << 40) + 7919 * std::int64_t(rank) + 1; }
}  // namespace

TEST(Collectives, AllreduceSumMinMax64Bit) {
  auto& ctx = context();
  const auto sum = comm::allreduce(ctx, big_value(ctx.rank()), comm::Op::sum);
  std::int64_t expect = 0;
  for (int r = 0; r < ctx.size(); ++r) expect += big_value(r);
  EXPECT_EQ(sum, expect);
  EXPECT_EQ(comm::allreduce(ctx, big_value(ctx.rank()), comm::Op::min), big_value(0));
  EXPECT_EQ(comm::allreduce(ctx, big_value(ctx.rank()), comm::Op::max), big_value(ctx.size() - 1));
  EXPECT_DOUBLE_EQ(comm::allreduce(ctx, 0.5 + ctx.rank(), comm::Op::sum), 0.5 * ctx.size() + ctx.size() * (ctx.size() - 1) / 2.0);
}

TEST(Collectives, AllreduceVectorInPlace) {
  auto& ctx = context();
  std::vector<std::uint64_t> v = {std::uint64_t(ctx.rank()) << 33, 5, std::uint64_t(ctx.rank() + 1)};
  comm::allreduce_inplace(ctx, std::span<std::uint64_t>(v), comm::Op::sum);
  const std::uint64_t p = ctx.size();
  EXPECT_EQ(v[0], (p * (p - 1) / 2) << 33);
  EXPECT_EQ(v[1], 5 * p);
  EXPECT_EQ(v[2], p * (p + 1) / 2);
}

TEST(Collectives, ExscanIsZeroOnRankZeroAndPrefixElsewhere) {
  auto& ctx = context();
  const auto x = comm::exscan(ctx, big_value(ctx.rank()));
  std::int64_t expect = 0;
  for (int r = 0; r < ctx.rank(); ++r) expect += big_value(r);
  EXPECT_EQ(x, expect);
  EXPECT_EQ(comm::exscan(ctx, 1.25), 1.25 * ctx.rank());
}

TEST(Collectives, AllgatherAndBroadcast) {
  auto& ctx = context();
  const auto all = comm::allgather(ctx, big_value(ctx.rank()));
  ASSERT_EQ(static_cast<int>(all.size()), ctx.size());
  for (int r = 0; r < ctx.size(); ++r) EXPECT_EQ(all[r], big_value(r));

  const std::string sent = std::string("[run]\nsolver = \"nbody\"\n") + std::string(10000, 'x');
  std::string text = ctx.rank() == 0 ? sent : "junk";
  comm::broadcast(ctx, text);
  EXPECT_EQ(text, sent);
  const int root = ctx.size() - 1;
  EXPECT_EQ(comm::broadcast_value(ctx, 100 + ctx.rank(), root), 100 + root);
}

TEST(Collectives, AlltoallvUnevenAndEmpty) {
  auto& ctx = context();
  const int p = ctx.size(), me = ctx.rank();
  // Rank s sends (s + d) % 3 elements to rank d (some zero), each encoding (s, d, i).
  std::vector<std::int64_t> counts(p);
  std::vector<std::int64_t> send;
  for (int d = 0; d < p; ++d) {
    counts[d] = (me + d) % 3;
    for (int i = 0; i < counts[d]; ++i) send.push_back((std::int64_t(me) << 40) | (std::int64_t(d) << 20) | i);
  }
  std::vector<std::int64_t> recv_counts;
  const auto got = comm::alltoallv<std::int64_t>(ctx, send, counts, &recv_counts);
  std::size_t k = 0;
  for (int s = 0; s < p; ++s) {
    ASSERT_EQ(recv_counts[s], (s + me) % 3);
    for (int i = 0; i < recv_counts[s]; ++i, ++k)
      EXPECT_EQ(got[k], (std::int64_t(s) << 40) | (std::int64_t(me) << 20) | i);
  }
  EXPECT_EQ(k, got.size());
}

TEST(Collectives, AlltoallvRejectsInconsistentCounts) {
  auto& ctx = context();
  std::vector<std::int64_t> counts(ctx.size(), 1);
  std::vector<int> send(ctx.size() + 1, 3);
  EXPECT_THROW(comm::alltoallv<int>(ctx, send, counts), std::invalid_argument);
}

TEST(Collectives, GatherTextInRankOrder) {
  auto& ctx = context();
  const std::string mine = fmt::format("rank {} says {}", ctx.rank(), std::string(ctx.rank() * 3, 'z'));
  const auto all = comm::gather_text(ctx, mine, 0);
  if (ctx.rank() == 0) {
    ASSERT_EQ(static_cast<int>(all.size()), ctx.size());
    for (int r = 0; r < ctx.size(); ++r) EXPECT_EQ(all[r], fmt::format("rank {} says {}", r, std::string(r * 3, 'z')));
  } else {
    EXPECT_TRUE(all.empty());
  }
}
