#pragma once
// Sums over all N bodies that come out with the same bits on any number of ranks, for terms
// any rank can compute for any body (generated initial conditions). Bodies are grouped in
// fixed chunks that depend on N only; chunk c is summed in index order by rank c % P; every
// rank then adds the chunk sums in chunk order. The allreduce that shares the chunk sums adds
// each to zeros only, which is exact.
#include <array>
#include <cstdint>
#include <vector>

#include "comm/collectives.hpp"

namespace tessera::nbody {

inline std::int64_t reproducible_chunk(std::int64_t n) {
  const std::int64_t by_count = (n + 1023) / 1024;  // at most 1024 chunks
  return by_count > 4096 ? by_count : 4096;
}

template <std::size_t K, class Term>
std::array<double, K> reproducible_sum(comm::Context& ctx, std::int64_t n, Term&& term) {
  const std::int64_t chunk = reproducible_chunk(n);
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  std::vector<double> parts(static_cast<std::size_t>(chunks) * K, 0.0);
  for (std::int64_t c = ctx.rank(); c < chunks; c += ctx.size()) {
    std::array<double, K> s{};
    const std::int64_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (std::int64_t i = c * chunk; i < end; ++i) {
      const std::array<double, K> t = term(i);
      for (std::size_t k = 0; k < K; ++k) s[k] += t[k];
    }
    for (std::size_t k = 0; k < K; ++k) parts[static_cast<std::size_t>(c) * K + k] = s[k];
  }
  comm::allreduce_inplace(ctx, std::span<double>(parts), comm::Op::sum);
  std::array<double, K> total{};
  for (std::int64_t c = 0; c < chunks; ++c)
    for (std::size_t k = 0; k < K; ++k) total[k] += parts[static_cast<std::size_t>(c) * K + k];
  return total;
}

}  // namespace tessera::nbody
