#pragma once
// Counter-based randomness shared by the cpu and cuda code (TESSERA_HD), so a graph depends
// only on its seed, never on how many ranks or threads generate it:
//  - mix64: the splitmix64 finalizer, a bijective 64-bit hash; value i of a stream keyed by k
//    is mix64(k + (i + 1) * golden), so any element is computed without the ones before it.
//  - Permutation: a bijection of [0, domain) (a 4-round Feistel network on 2h >= log2(domain)
//    bits with cycle walking), used for vertex labels, the edge order and root sampling.
#include <cstdint>

#include "core/hd.hpp"

namespace tessera::bfs {

inline constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

TESSERA_HD std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Element i of the stream keyed by `key`.
TESSERA_HD std::uint64_t stream_value(std::uint64_t key, std::uint64_t i) { return mix64(key + (i + 1) * kGolden); }

// Derives an independent key for a purpose (vertex labels, edge order, edges, roots).
inline std::uint64_t derive_key(std::uint64_t seed, std::uint64_t purpose) {
  return mix64(mix64(seed ^ 0x6A09E667F3BCC909ull) + purpose * kGolden);
}

struct Permutation {
  std::uint64_t domain = 1;
  int half_bits = 0;           // h: the network permutes 2h bits
  std::uint64_t half_mask = 0;
  std::uint64_t keys[4] = {};

  // A bijection of [0, domain) chosen by `key`.
  static Permutation make(std::uint64_t domain, std::uint64_t key) {
    Permutation p;
    p.domain = domain > 0 ? domain : 1;
    int bits = 0;
    while (bits < 64 && (std::uint64_t{1} << bits) < p.domain) ++bits;
    p.half_bits = (bits + 1) / 2;
    p.half_mask = p.half_bits == 0 ? 0 : (std::uint64_t{1} << p.half_bits) - 1;
    for (int r = 0; r < 4; ++r) p.keys[r] = stream_value(key, static_cast<std::uint64_t>(r));
    return p;
  }

  TESSERA_HD std::uint64_t round_trip(std::uint64_t x) const {
    std::uint64_t left = x >> half_bits, right = x & half_mask;
    for (int r = 0; r < 4; ++r) {
      const std::uint64_t f = mix64(right ^ keys[r]) & half_mask;
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    return (left << half_bits) | right;
  }

  // Cycle walking: re-encrypt until the value falls back into [0, domain). The network is a
  // bijection of [0, 2^2h), so its restriction by cycle walking is a bijection of the domain;
  // 2^2h < 4 * domain, so few rounds are needed.
  TESSERA_HD std::uint64_t operator()(std::uint64_t x) const {
    if (half_bits == 0) return 0;
    do {
      x = round_trip(x);
    } while (x >= domain);
    return x;
  }
};

}  // namespace tessera::bfs
