// comm::allgather_blocks and allgather_equal_blocks on the host transport (cpu backend), run
// for P = 1..4 ranks. Blocks are uneven (block_range of random totals, so with a small total
// some ranks hold nothing) and placed with gaps between them; each rank's bytes are random from
// a seed that encodes the round and the rank. Every rank must end with every block in its
// place, and the gaps untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "comm/allgather.hpp"
#include "comm/transport.hpp"
#include "core/partition.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::comm {
namespace {

using Bytes = std::vector<unsigned char>;
constexpr unsigned char kGap = 0x3C;
constexpr std::int64_t kGapBytes = 5;

Bytes random_bytes(std::size_t n, std::uint64_t seed) {
  auto gen = test::rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<unsigned char>(gen() >> 56);
  return out;
}

TEST(Allgather, UnevenBlocksWithGapsArriveEverywhere) {
  auto& ctx = test::context();
  const int p = ctx.size(), me = ctx.rank();
  const auto host = make_transport(ctx, Backend::cpu, "auto");
  auto gen = test::rng(77);
  for (int round = 0; round < 6; ++round) {
    const auto total = static_cast<std::int64_t>(gen() % (round < 2 ? 4 : 5000));  // tiny totals: empty blocks
    std::vector<std::int64_t> offsets, lengths;
    std::int64_t at = kGapBytes;
    for (int r = 0; r < p; ++r) {
      offsets.push_back(at);
      lengths.push_back(block_range(total, p, r).count);
      at += lengths.back() + kGapBytes;
    }
    const auto seed = [&](int r) { return 1000u * static_cast<std::uint64_t>(round) + static_cast<std::uint64_t>(r); };
    Bytes buffer(static_cast<std::size_t>(at), kGap);
    const Bytes mine = random_bytes(static_cast<std::size_t>(lengths[me]), seed(me));
    std::copy(mine.begin(), mine.end(), buffer.begin() + offsets[me]);
    allgather_blocks(ctx, *host.transport, nullptr, reinterpret_cast<std::byte*>(buffer.data()), offsets, lengths,
                     100 + round);
    Bytes want(static_cast<std::size_t>(at), kGap);
    for (int r = 0; r < p; ++r) {
      const Bytes theirs = random_bytes(static_cast<std::size_t>(lengths[r]), seed(r));
      std::copy(theirs.begin(), theirs.end(), want.begin() + offsets[r]);
    }
    EXPECT_EQ(buffer, want) << "round " << round << ", total " << total;
  }
}

TEST(Allgather, EqualBlocksAreRankOrdered) {
  auto& ctx = test::context();
  const int p = ctx.size(), me = ctx.rank();
  const auto host = make_transport(ctx, Backend::cpu, "auto");
  std::vector<std::int64_t> slots(static_cast<std::size_t>(p), -1);
  slots[me] = 1000 * me + 7;
  allgather_equal_blocks(ctx, *host.transport, nullptr, reinterpret_cast<std::byte*>(slots.data()),
                         sizeof(std::int64_t), 5);
  for (int r = 0; r < p; ++r) EXPECT_EQ(slots[r], 1000 * r + 7) << "slot " << r;
}

}  // namespace
}  // namespace tessera::comm
