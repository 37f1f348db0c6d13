#pragma once
// A checksum of a distributed dataset that is the same however the data is split over ranks.
//
// Definition. The data is a sequence of elements in global (file) order. Each element is cut
// into 8-byte words (an element shorter than 8 bytes is one word, zero-padded; the last
// partial word of a longer one is padded the same way), numbered globally:
//   word j of element e has index i = e * words_per_element + j.
// The checksum is
//   C = sum over all words of  splitmix64((i * K) ^ w_i)   (mod 2^64),  K = 0x9E3779B97F4A7C15.
//
// Why it works:
//  - Order-independent: addition mod 2^64 is commutative and associative, so every rank can
//    sum its own words (knowing only its global offset) and an allreduce(sum) adds the parts
//    in any order. Any split of the data - P ranks or Q, slabs or boxes - gives the same C.
//  - Position-sensitive: the index enters the hash, so moving or swapping values changes the
//    terms (a plain sum of values would not notice a swap); splitmix64 is a bijection with
//    full avalanche, so flipping any bit of a word changes its term unpredictably, and the
//    chance that a random corruption leaves C unchanged is about 2^-64.
// It detects corruption, not tampering (it is not a cryptographic hash).
//
// The local part needs no MPI; checksum_global() adds the parts over ctx.world().
#include <cstddef>
#include <cstdint>
#include <span>

#include "io/box3.hpp"

namespace tessera::comm {
class Context;
}

namespace tessera::io {

inline constexpr std::uint64_t kChecksumK = 0x9E3779B97F4A7C15ull;
// Written next to each checksum, so a future change of definition is recognised.
inline constexpr const char* kChecksumAlgorithm = "tessera-splitmix64-position-sum-v1";

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The term of word w at global word index i.
constexpr std::uint64_t checksum_term(std::uint64_t i, std::uint64_t w) { return splitmix64((i * kChecksumK) ^ w); }

// Sum of the terms of `count` elements of `element_size` bytes at `data`, the first of which
// is element `first_element` of the whole dataset.
std::uint64_t checksum_bytes(const void* data, std::int64_t count, std::size_t element_size,
                             std::int64_t first_element);

template <class T>
std::uint64_t checksum_local(std::span<const T> local, std::int64_t global_offset) {
  return checksum_bytes(local.data(), static_cast<std::int64_t>(local.size()), sizeof(T), global_offset);
}

// This rank's box of a 3D array (laid out in memory as `mem`): each x row of the box is
// contiguous in memory and in the file's global (z, y, x) order, so it is summed as a run.
std::uint64_t checksum_bytes_3d(const void* data, std::size_t element_size, const Box3& box, const Strided3& mem);

template <class T>
std::uint64_t checksum_local_3d(std::span<const T> local, const Box3& box, const Strided3& mem) {
  return checksum_bytes_3d(local.data(), sizeof(T), box, mem);
}

// Collective: the sum of every rank's local part.
std::uint64_t checksum_global(comm::Context& ctx, std::uint64_t local_part);

}  // namespace tessera::io
