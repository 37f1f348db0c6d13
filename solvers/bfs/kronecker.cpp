#include "solvers/bfs/kronecker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace tessera::bfs {
namespace {

// A probability as a 32-bit threshold t: a uniform 32-bit r exceeds t with probability 1 - p.
std::uint32_t threshold(double p) {
  const double t = std::floor(p * 4294967296.0);
  if (t <= 0) return 0;
  if (t >= 4294967295.0) return 0xFFFFFFFFu;
  return static_cast<std::uint32_t>(t);
}

// Function multiversioning: one copy per instruction set, chosen when the program loads.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TESSERA_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TESSERA_VECTOR_CLONES
#endif

constexpr int kLanes = 16;

// The network of Permutation::round_trip over a batch of lanes, in place.
inline void round_trip_lanes(const Permutation& p, std::uint64_t* x) {
  for (int k = 0; k < kLanes; ++k) {
    std::uint64_t left = x[k] >> p.half_bits, right = x[k] & p.half_mask;
    for (int r = 0; r < 4; ++r) {
      const std::uint64_t next = left ^ (mix64(right ^ p.keys[r]) & p.half_mask);
      left = right;
      right = next;
    }
    x[k] = (left << p.half_bits) | right;
  }
}

// Permutation::operator() over a batch of values in the domain: one round trip for all lanes,
// then cycle walking, all lanes again while any is outside the domain (half of them per round
// when the domain is not a power of four), keeping the lanes already inside.
inline void permute_lanes(const Permutation& p, std::uint64_t* x) {
  if (p.half_bits == 0) {
    for (int k = 0; k < kLanes; ++k) x[k] = 0;
    return;
  }
  round_trip_lanes(p, x);
  for (;;) {
    bool outside = false;
    for (int k = 0; k < kLanes; ++k) outside |= x[k] >= p.domain;
    if (!outside) return;
    std::uint64_t next[kLanes];
    for (int k = 0; k < kLanes; ++k) next[k] = x[k];
    round_trip_lanes(p, next);
    for (int k = 0; k < kLanes; ++k) x[k] = x[k] >= p.domain ? next[k] : x[k];
  }
}

TESSERA_VECTOR_CLONES void generate_lanes(const KroneckerGenerator& g, std::uint64_t first, std::int64_t count,
                                          Edge* out) {
  for (std::int64_t base = 0; base < count; base += kLanes) {
    const int used = static_cast<int>(std::min<std::int64_t>(kLanes, count - base));
    std::uint64_t key[kLanes], i[kLanes], j[kLanes];
    // Unused lanes take position 0: every lane must start inside the domain, or its cycle
    // walk might never return to it.
    for (int k = 0; k < kLanes; ++k) key[k] = k < used ? first + static_cast<std::uint64_t>(base + k) : 0;
    permute_lanes(g.edge_order, key);
    for (int k = 0; k < kLanes; ++k) {
      key[k] = mix64(g.edge_key ^ mix64(key[k]));
      i[k] = 0;
      j[k] = 0;
    }
    for (int level = 0; level < g.scale; ++level) {
      for (int k = 0; k < kLanes; ++k) {  // KroneckerGenerator::edge, lane by lane
        const std::uint64_t r = stream_value(key[k], static_cast<std::uint64_t>(level));
        const std::uint32_t ri = static_cast<std::uint32_t>(r), rj = static_cast<std::uint32_t>(r >> 32);
        const std::uint64_t ibit = ri > g.ab ? 1 : 0;
        const std::uint64_t jbit = rj > (ibit ? g.c_norm : g.a_norm) ? 1 : 0;
        i[k] |= ibit << level;
        j[k] |= jbit << level;
      }
    }
    permute_lanes(g.labels, i);
    permute_lanes(g.labels, j);
    for (int k = 0; k < used; ++k) out[base + k] = {static_cast<std::int64_t>(i[k]), static_cast<std::int64_t>(j[k])};
  }
}

}  // namespace

void generate_edges(const KroneckerGenerator& g, std::uint64_t first, std::span<Edge> out) {
  generate_lanes(g, first, static_cast<std::int64_t>(out.size()), out.data());
}

KroneckerGenerator make_kronecker(const KroneckerSpec& s) {
  if (s.scale < 1 || s.scale > 40) throw InputError(fmt::format("Kronecker scale {} is outside [1, 40]", s.scale));
  if (s.edgefactor < 1) throw InputError(fmt::format("Kronecker edgefactor {} must be at least 1", s.edgefactor));
  const double d = 1.0 - s.a - s.b - s.c;
  if (!(s.a > 0 && s.b > 0 && s.c > 0 && d > 0))
    throw InputError(fmt::format("Kronecker initiator A={} B={} C={} leaves D={}: all four must be positive", s.a,
                                 s.b, s.c, d));
  KroneckerGenerator g;
  g.scale = s.scale;
  g.ab = threshold(s.a + s.b);
  g.a_norm = threshold(s.a / (s.a + s.b));
  g.c_norm = threshold(s.c / (s.c + d));
  g.edge_key = derive_key(s.seed, 1);
  g.labels = Permutation::make(static_cast<std::uint64_t>(s.vertices()), derive_key(s.seed, 2));
  g.edge_order = Permutation::make(static_cast<std::uint64_t>(s.edges()), derive_key(s.seed, 3));
  return g;
}

}  // namespace tessera::bfs
