#pragma once
// Shared by the scan tests: the lengths every variant is checked at, random inputs (never all
// zeros, negative values included), and the serial 64-bit reference every result is compared
// with: exact (wrapping like the scan) for integers, long double within the verification
// tolerance for floating point.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/partition.hpp"
#include "solvers/scan/types.hpp"
#include "solvers/scan/verify.hpp"

namespace tessera::scan::test {

// The (input, output) element types every scan supports, for typed tests.
template <class I, class O>
struct Pair {
  using In = I;
  using Out = O;
};
using Pairs = ::testing::Types<Pair<std::int32_t, std::int32_t>, Pair<std::int32_t, std::int64_t>,
                               Pair<std::int64_t, std::int64_t>, Pair<float, float>, Pair<double, double>>;

// Edge lengths: tiny, warp +-1, the seed kernels' blocks (512, 1024) +-1, lookback tiles of
// 4-byte (3072) and 8-byte inputs (2048) +-1, the reduction's tile (4096) +-1, several tiles,
// non-powers of two, and 10^6 + 3.
inline std::vector<std::int64_t> edge_lengths() {
  return {0,    1,    2,    31,   32,   33,   511,  512,   513,   1023,  1024,  1025, 2047,
          2048, 2049, 3071, 3072, 3073, 4095, 4096, 4097,  6143,  6145,  12289, 1000, 99991,
          1000003};
}

// Random lengths (fixed seed) below `limit`.
inline std::vector<std::int64_t> random_lengths(int count, std::int64_t limit, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::int64_t> out;
  for (int i = 0; i < count; ++i) out.push_back(static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(limit)));
  return out;
}

// Values in [-range, range] (integers) or [-1, 1] (floating point), never all zero.
template <class T>
std::vector<T> random_input(std::int64_t n, std::uint64_t seed, std::int64_t range = 1000) {
  std::mt19937_64 g(seed * 0x9E3779B97F4A7C15ull + 7);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>)
      x = static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(g));
    else
      x = static_cast<T>(std::uniform_int_distribution<std::int64_t>(-range, range)(g));
  }
  if (n > 0) v[0] = v[0] == T(0) ? T(3) : v[0];
  return v;
}

// The serial reference: element i of the scan plus `offset`, and the running sum of |in| for
// floating-point tolerances.
template <class In, class Out>
struct Reference {
  std::vector<ReferenceSum<Out>> at;  // the reference sum giving element i
  std::vector<long double> magnitude;
};

template <class In, class Out>
Reference<In, Out> reference_scan(const std::vector<In>& in, Mode mode, wide_t<Out> offset) {
  Reference<In, Out> r;
  ReferenceSum<Out> acc;
  if constexpr (std::is_floating_point_v<Out>) acc.sum = offset;
  else acc.sum = static_cast<std::uint64_t>(offset);
  long double mag = std::fabs(static_cast<long double>(offset));
  for (const In x : in) {
    mag += std::fabs(static_cast<long double>(x));
    if (mode == Mode::inclusive) acc.add(x);
    r.at.push_back(acc);
    r.magnitude.push_back(mag);
    if (mode == Mode::exclusive) acc.add(x);
  }
  return r;
}

// Checks `got` against the reference: bitwise for integers, within the tolerance otherwise.
// Returns the number of differing elements (reporting the first few).
template <class In, class Out>
std::int64_t count_mismatches(const std::vector<Out>& got, const Reference<In, Out>& ref, const std::string& what) {
  std::int64_t bad = 0;
  const auto n = static_cast<std::int64_t>(got.size());
  const double factor = float_tolerance_factor(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto& r = ref.at[static_cast<std::size_t>(i)];
    bool ok;
    if constexpr (std::is_floating_point_v<Out>) {
      const double tol = std::numeric_limits<Out>::epsilon() * static_cast<double>(ref.magnitude[i]) * factor +
                         std::numeric_limits<Out>::min();
      ok = std::fabs(static_cast<double>(static_cast<long double>(got[i]) - r.value())) <= tol;
    } else {
      ok = got[static_cast<std::size_t>(i)] == r.value();
    }
    if (!ok && bad++ < 3)
      ADD_FAILURE() << what << ": element " << i << " of " << n << " is " << +got[static_cast<std::size_t>(i)]
                    << ", expected " << +static_cast<Out>(r.value());
  }
  return bad;
}

// Partitions of n over p ranks (the same on every rank): block_range, random cuts, and random
// cuts with the first, a middle and the last rank emptied.
inline std::vector<std::vector<Range>> partitions(std::int64_t n, int p, std::uint64_t seed) {
  std::vector<std::vector<Range>> out;
  std::vector<Range> even;
  for (int r = 0; r < p; ++r) even.push_back(block_range(n, p, r));
  out.push_back(even);
  std::mt19937_64 g(seed);
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<std::int64_t> cuts{0, n};
    for (int r = 1; r < p; ++r) cuts.push_back(n > 0 ? static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(n + 1)) : 0);
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::int64_t> counts;
    for (int r = 0; r < p; ++r) counts.push_back(cuts[r + 1] - cuts[r]);
    if (variant > 0) {  // empty one rank, giving its elements to a neighbour
      const int empty = variant == 1 ? 0 : variant == 2 ? p / 2 : p - 1;
      const int neighbour = empty + 1 < p ? empty + 1 : empty - 1;
      if (neighbour >= 0 && neighbour < p) {
        counts[static_cast<std::size_t>(neighbour)] += counts[static_cast<std::size_t>(empty)];
        counts[static_cast<std::size_t>(empty)] = 0;
      }
    }
    std::vector<Range> part;
    std::int64_t begin = 0;
    for (auto c : counts) {
      part.push_back({begin, c});
      begin += c;
    }
    out.push_back(part);
  }
  return out;
}

}  // namespace tessera::scan::test
