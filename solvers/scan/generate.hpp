#pragma once
// Generated inputs: element i is a pure function of (seed, i) through a counter-based hash, so
// any rank generates its own block without communication, on the host or the device, and the
// input is the same whatever the number of ranks.
#include <cstdint>
#include <type_traits>

#include "core/hd.hpp"

namespace tessera::scan {

enum class GeneratorKind { random, constant };

struct Generator {
  GeneratorKind kind = GeneratorKind::random;
  std::uint64_t seed = 1;
  double low = -100, high = 100;  // random: uniform in [low, high] (integers: both ends included)
  double value = 1;               // constant: every element
};

// splitmix64's finaliser: a bijection with full avalanche.
TESSERA_HD std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// High 64 bits of a * b: maps a uniform 64-bit hash onto [0, b) without a division.
TESSERA_HD std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

template <class T>
TESSERA_HD T generated_value(const Generator& g, std::int64_t i) {
  if (g.kind == GeneratorKind::constant) return static_cast<T>(g.value);
  const std::uint64_t h = mix64(mix64(g.seed) + static_cast<std::uint64_t>(i));
  if constexpr (std::is_integral_v<T>) {
    const auto lo = static_cast<std::uint64_t>(static_cast<std::int64_t>(g.low));
    const auto hi = static_cast<std::uint64_t>(static_cast<std::int64_t>(g.high));
    const std::uint64_t span = hi - lo + 1;  // modulo 2^64; 0 means all 2^64 values
    const std::uint64_t r = span == 0 ? h : mul_high(h, span);
    return static_cast<T>(static_cast<std::int64_t>(lo + r));
  } else {
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1), exact
#if defined(__CUDA_ARCH__)
    // Separately rounded, as on the host: nvcc would contract a + u * b into an FMA.
    return static_cast<T>(__dadd_rn(g.low, __dmul_rn(u, __dsub_rn(g.high, g.low))));
#else
    return static_cast<T>(g.low + u * (g.high - g.low));
#endif
  }
}

// out[j] = element (first + j) for j in [0, count), on the host (OpenMP).
template <class T>
void generate_values(T* out, std::int64_t count, std::int64_t first, const Generator& gen);

}  // namespace tessera::scan
