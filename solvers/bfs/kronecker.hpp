#pragma once
// The Graph500 Kronecker generator (specification 3.0, kronecker_generator.m): 2^scale
// vertices, edgefactor * 2^scale edges; each edge descends `scale` levels of the 2x2
// initiator [A B; C D], choosing a quadrant per level; vertex labels are then permuted and
// the edge list shuffled.
//
// Here edge e is a pure function of (seed, e): it is generated from the counter-based stream
// keyed by the seed and its shuffled position, and its labels go through a bijective hash of
// `scale` bits, so any rank (or GPU thread) generates any slice of the edge list without a
// global array, and the list is identical for every number of ranks. The quadrant draws are
// 32-bit integers compared with thresholds rounded once on the host, so cpu and cuda agree
// bit for bit.
#include <cstdint>
#include <span>

#include "core/hd.hpp"
#include "solvers/bfs/edge.hpp"
#include "solvers/bfs/random.hpp"

namespace tessera::bfs {

struct KroneckerSpec {
  int scale = 16;
  std::int64_t edgefactor = 16;
  std::uint64_t seed = 1;
  double a = 0.57, b = 0.19, c = 0.19;  // d = 1 - a - b - c

  std::int64_t vertices() const { return std::int64_t{1} << scale; }
  std::int64_t edges() const { return edgefactor << scale; }
};

struct KroneckerGenerator {
  int scale = 0;
  std::uint32_t ab = 0;      // P(i bit = 0)       = a + b
  std::uint32_t a_norm = 0;  // P(j bit = 0 | i=0) = a / (a + b)
  std::uint32_t c_norm = 0;  // P(j bit = 0 | i=1) = c / (c + d)
  std::uint64_t edge_key = 0;
  Permutation labels;      // vertex label permutation of [0, 2^scale)
  Permutation edge_order;  // position in the shuffled list -> generation counter

  TESSERA_HD Edge edge(std::uint64_t position) const {
    const std::uint64_t key = mix64(edge_key ^ mix64(edge_order(position)));
    std::uint64_t i = 0, j = 0;
    for (int level = 0; level < scale; ++level) {
      const std::uint64_t r = stream_value(key, static_cast<std::uint64_t>(level));
      const std::uint32_t ri = static_cast<std::uint32_t>(r), rj = static_cast<std::uint32_t>(r >> 32);
      const std::uint64_t ibit = ri > ab ? 1 : 0;  // Octave: rand > ab
      const std::uint64_t jbit = rj > (ibit ? c_norm : a_norm) ? 1 : 0;
      i |= ibit << level;
      j |= jbit << level;
    }
    return {static_cast<std::int64_t>(labels(i)), static_cast<std::int64_t>(labels(j))};
  }
};

// Checks the spec (InputError naming the problem) and prepares the generator.
KroneckerGenerator make_kronecker(const KroneckerSpec& spec);

// Host: edges [first, first + out.size()) of the list, equal to g.edge(first + i), computed
// 16 at a time so the compiler vectorises the 64-bit hashes (AVX-512 or AVX2 where the CPU
// has them, picked at run time: about 10x faster than edge() one by one with AVX-512).
void generate_edges(const KroneckerGenerator& g, std::uint64_t first, std::span<Edge> out);

}  // namespace tessera::bfs
