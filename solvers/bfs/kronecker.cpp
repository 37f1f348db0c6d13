#include "solvers/bfs/kronecker.hpp"

#include <fmt/format.h>

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

}  // namespace

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
