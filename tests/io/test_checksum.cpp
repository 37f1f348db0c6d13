// Unit tests of the decomposition-independent checksum (no MPI needed for the local part).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "io/checksum.hpp"

namespace tessera::io {
namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> out(n);
  for (auto& b : out) b = static_cast<unsigned char>(rng() | 1u);  // never zero
  return out;
}

TEST(Checksum, Splitmix64MatchesTheReferenceSequence) {
  // The first output of the reference SplitMix64 generator seeded with 0.
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_NE(splitmix64(1), splitmix64(0));
}

// The sum over any split, each part with its global offset, equals the checksum of the whole,
// for element sizes below, at and above the 8-byte word (12 and 16 use two words each).
TEST(Checksum, AnySplitGivesTheWholeChecksum) {
  std::mt19937_64 rng(2024);
  for (std::size_t esize : {1u, 2u, 4u, 8u, 12u, 16u}) {
    const std::int64_t n = 997;
    const auto data = random_bytes(static_cast<std::size_t>(n) * esize, esize);
    const std::uint64_t whole = checksum_bytes(data.data(), n, esize, 0);
    for (int trial = 0; trial < 50; ++trial) {
      // Random cut points, including empty parts.
      const int parts = 1 + static_cast<int>(rng() % 7);
      std::vector<std::int64_t> cuts{0, n};
      for (int p = 1; p < parts; ++p) cuts.push_back(static_cast<std::int64_t>(rng() % (n + 1)));
      std::sort(cuts.begin(), cuts.end());
      std::uint64_t sum = 0;
      // Add the parts in a shuffled order: the combination must not depend on it.
      std::vector<std::size_t> order(cuts.size() - 1);
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      for (std::size_t i : order)
        sum += checksum_bytes(data.data() + cuts[i] * esize, cuts[i + 1] - cuts[i], esize, cuts[i]);
      EXPECT_EQ(sum, whole) << "element size " << esize << ", " << parts << " parts";
    }
  }
}

TEST(Checksum, SwappingTwoElementsChangesIt) {
  std::vector<std::int64_t> v(100);
  std::mt19937_64 rng(7);
  for (auto& x : v) x = static_cast<std::int64_t>(rng() % 1000000) + 1;
  const std::uint64_t before = checksum_local<std::int64_t>(v, 0);
  std::int64_t plain_before = 0;
  for (auto x : v) plain_before += x;
  std::swap(v[3], v[71]);
  std::int64_t plain_after = 0;
  for (auto x : v) plain_after += x;
  ASSERT_NE(v[3], v[71]);
  EXPECT_EQ(plain_before, plain_after);             // a plain sum cannot see the swap ...
  EXPECT_NE(checksum_local<std::int64_t>(v, 0), before);  // ... the position-aware checksum does
}

TEST(Checksum, TheSameDataAtAnotherOffsetDiffers) {
  std::vector<std::int32_t> v{5, -3, 11, 42, 7};
  EXPECT_NE(checksum_local<std::int32_t>(v, 0), checksum_local<std::int32_t>(v, 1));
}

TEST(Checksum, EveryBitFlipChangesIt) {
  for (std::size_t esize : {1u, 4u, 8u, 12u}) {
    auto data = random_bytes(16 * esize, 99 + esize);
    const std::uint64_t base = checksum_bytes(data.data(), 16, esize, 1000);
    for (std::size_t byte = 0; byte < data.size(); ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        data[byte] ^= static_cast<unsigned char>(1u << bit);
        EXPECT_NE(checksum_bytes(data.data(), 16, esize, 1000), base) << "byte " << byte << " bit " << bit;
        data[byte] ^= static_cast<unsigned char>(1u << bit);
      }
    }
  }
}

TEST(Checksum, ZeroPaddingOfShortElementsIsExplicit) {
  // An int8 -1 is the word 0xFF, not a sign-extended 0xFF..FF: a 1-byte element is its byte.
  const std::int8_t minus_one = -1;
  EXPECT_EQ(checksum_local<std::int8_t>(std::span<const std::int8_t>(&minus_one, 1), 5), checksum_term(5, 0xFF));
  // A 12-byte element is two words: bytes 0..7, then bytes 8..11 zero-padded.
  unsigned char elem[12];
  for (int i = 0; i < 12; ++i) elem[i] = static_cast<unsigned char>(i + 1);
  std::uint64_t w0 = 0, w1 = 0;
  for (int b = 0; b < 8; ++b) w0 |= static_cast<std::uint64_t>(elem[b]) << (8 * b);
  for (int b = 0; b < 4; ++b) w1 |= static_cast<std::uint64_t>(elem[8 + b]) << (8 * b);
  EXPECT_EQ(checksum_bytes(elem, 1, 12, 3), checksum_term(6, w0) + checksum_term(7, w1));
}

TEST(Checksum, EmptyDataHasChecksumZero) {
  EXPECT_EQ(checksum_bytes(nullptr, 0, 8, 123), 0u);
}

// Boxes of a 3D array in ghosted, padded local arrays add up to the checksum of the dense
// global array in file order (z slowest, x fastest).
TEST(Checksum, BoxesOfA3DArrayAddUpToTheWhole) {
  const Index3 global{7, 5, 4};
  std::vector<float> dense(static_cast<std::size_t>(global[0] * global[1] * global[2]));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> u(0.5f, 9.5f);
  for (auto& x : dense) x = u(rng);
  const std::uint64_t whole = checksum_local<float>(dense, 0);

  const std::int64_t xs[] = {0, 3, 7}, ys[] = {0, 2, 5}, zs[] = {0, 1, 4};
  std::uint64_t sum = 0;
  for (int bz = 0; bz < 2; ++bz)
    for (int by = 0; by < 2; ++by)
      for (int bx = 0; bx < 2; ++bx) {
        const Box3 box{global, {xs[bx], ys[by], zs[bz]}, {xs[bx + 1] - xs[bx], ys[by + 1] - ys[by], zs[bz + 1] - zs[bz]}};
        const Strided3 mem = Strided3::ghosted(box.size, 2, box.size[0] + 4 + 3, box.size[1] + 4 + 1);
        std::vector<float> local(static_cast<std::size_t>(mem.elements()), -777.0f);  // poison: must not count
        for (std::int64_t k = 0; k < box.size[2]; ++k)
          for (std::int64_t j = 0; j < box.size[1]; ++j)
            for (std::int64_t i = 0; i < box.size[0]; ++i)
              local[static_cast<std::size_t>(mem.index(i, j, k))] =
                  dense[static_cast<std::size_t>(((box.offset[2] + k) * global[1] + box.offset[1] + j) * global[0] +
                                                 box.offset[0] + i)];
        sum += checksum_local_3d<float>(local, box, mem);
      }
  EXPECT_EQ(sum, whole);
}

}  // namespace
}  // namespace tessera::io
