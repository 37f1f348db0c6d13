#pragma once
// Counter-based random numbers: a value is a pure function of (seed, stream, index), so any
// rank generates its own rows or vector entries identically for any number of ranks.
#include <cstdint>

#include "core/hd.hpp"

namespace tessera::spmv {

TESSERA_HD std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 64 random bits for (seed, stream, index).
TESSERA_HD std::uint64_t random_bits(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return mix64(mix64(seed ^ mix64(stream + 0x632BE59BD9B4E019ull)) + index);
}

// Uniform in (0, 1] (53 bits): never 0, so a power of it is finite.
TESSERA_HD double uniform_open0(std::uint64_t bits) { return (static_cast<double>(bits >> 11) + 1.0) * 0x1.0p-53; }

// Uniform in [0, 1).
TESSERA_HD double uniform01(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace tessera::spmv
