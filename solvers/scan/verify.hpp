#pragma once
// Verification of one rank's block of a scan against a CPU reference computed from the input.
// Integers are compared exactly (the reference wraps modulo 2^bits like the scan). Floating-
// point results are compared with a long double reference, within
//     |got - ref| <= eps(Out) * A_i * K(n),  K(n) = 2 log2(n + 1) + 2 sqrt(n / 1024) + 4,
// where A_i is the sum of |in| up to element i: the error bound of tree-shaped sums (the log
// term) plus the chain of tile prefixes a single-pass scan adds one after another (the sqrt
// term, its typical growth). A dropped or doubled element or tile is far outside it.
//
// The reference is built in two passes over chunks (OpenMP): chunk sums, then a walk through
// the chunks that hold compared elements. `sample` compares windows of 256 elements at fixed
// pseudo-random places plus each rank's first and last; `full` compares every element.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/partition.hpp"
#include "solvers/scan/generate.hpp"
#include "solvers/scan/types.hpp"

namespace tessera::scan {

constexpr std::int64_t kVerifyWindow = 256;

struct VerifyReport {
  std::int64_t checked = 0;
  std::int64_t mismatches = 0;
  std::int64_t first_index = -1;  // global index of the first mismatch
  std::string first;              // "got ..., expected ..." for it
  double max_error = 0;           // floating point: largest |got - ref| / tolerance seen
};

// The windows this rank compares, in local coordinates, sorted and disjoint.
std::vector<Range> sample_windows(std::int64_t global_n, Range block, int windows);

// The reference prefix: exact wrapping sums for integers, long double for floating point
// (with the sum of magnitudes for the tolerance).
template <class Out, class Enable = void>
struct ReferenceSum {
  std::uint64_t sum = 0;
  template <class In>
  void add(In x) { sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(x)); }
  void add(const ReferenceSum& o) { sum += o.sum; }
  Out value() const { return static_cast<Out>(static_cast<std::int64_t>(sum)); }
};

template <class Out>
struct ReferenceSum<Out, std::enable_if_t<std::is_floating_point_v<Out>>> {
  long double sum = 0, magnitude = 0;
  template <class In>
  void add(In x) {
    sum += static_cast<long double>(x);
    magnitude += std::fabs(static_cast<long double>(x));
  }
  void add(const ReferenceSum& o) {
    sum += o.sum;
    magnitude += o.magnitude;
  }
  long double value() const { return sum; }
};

inline double float_tolerance_factor(std::int64_t n) {
  const double x = static_cast<double>(n);
  return 2.0 * std::log2(x + 1.0) + 2.0 * std::sqrt(x / 1024.0) + 4.0;
}

// Pass 1: the reference sums of `chunks` equal chunks of the block (OpenMP).
template <class Out>
struct ReferenceChunks {
  std::vector<ReferenceSum<Out>> sums;
  ReferenceSum<Out> total() const {
    ReferenceSum<Out> t;
    for (const auto& s : sums) t.add(s);
    return t;
  }
};

template <class Out, class InputAt>
ReferenceChunks<Out> reference_chunks(const InputAt& input_at, std::int64_t n) {
  const int chunks = std::max(1, static_cast<int>(std::min<std::int64_t>(4 * omp_get_max_threads(), n / 4096 + 1)));
  ReferenceChunks<Out> out;
  out.sums.resize(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(dynamic, 1)
  for (int c = 0; c < chunks; ++c) {
    const Range r = block_range(n, chunks, c);
    ReferenceSum<Out> s;
    for (std::int64_t j = r.begin; j < r.end(); ++j) s.add(input_at(j));
    out.sums[static_cast<std::size_t>(c)] = s;
  }
  return out;
}

// Pass 2: compares this rank's elements in `windows` (local, sorted, disjoint). `got` holds the
// scan's output for the windows, concatenated; `input_at(j)` is local input element j;
// `before` is the reference sum of everything before this block (the other ranks').
template <class In, class Out, class InputAt>
VerifyReport compare_windows(const InputAt& input_at, Range block, std::int64_t global_n, Mode mode,
                             const ReferenceSum<Out>& before, const ReferenceChunks<Out>& chunks,
                             const std::vector<Range>& windows, const Out* got) {
  using Ref = ReferenceSum<Out>;
  const std::int64_t n = block.count;
  const int nchunks = static_cast<int>(chunks.sums.size());
  std::vector<std::int64_t> got_offset(windows.size());  // where each window starts in `got`
  for (std::size_t w = 0, at = 0; w < windows.size(); ++w) {
    got_offset[w] = static_cast<std::int64_t>(at);
    at += static_cast<std::size_t>(windows[w].count);
  }
  const double eps = std::is_floating_point_v<Out> ? std::numeric_limits<Out>::epsilon() : 0.0;
  const double factor = float_tolerance_factor(global_n);

  std::vector<VerifyReport> part(static_cast<std::size_t>(nchunks));
#pragma omp parallel for schedule(dynamic, 1)
  for (int c = 0; c < nchunks; ++c) {
    const Range r = block_range(n, nchunks, c);
    auto w = std::lower_bound(windows.begin(), windows.end(), r.begin,
                              [](const Range& x, std::int64_t j) { return x.end() <= j; });
    if (w == windows.end() || w->begin >= r.end()) continue;
    Ref ref = before;
    for (int u = 0; u < c; ++u) ref.add(chunks.sums[static_cast<std::size_t>(u)]);
    VerifyReport& rep = part[static_cast<std::size_t>(c)];
    for (std::int64_t j = r.begin; j < r.end() && w != windows.end(); ++j) {
      const In x = input_at(j);
      if (mode == Mode::inclusive) ref.add(x);
      if (j >= w->begin) {
        const Out g = got[got_offset[static_cast<std::size_t>(w - windows.begin())] + (j - w->begin)];
        bool bad;
        if constexpr (std::is_floating_point_v<Out>) {
          Ref with = ref;
          if (mode == Mode::exclusive) with.add(x);  // the tolerance counts |x| too
          const double tol = eps * static_cast<double>(with.magnitude) * factor + std::numeric_limits<Out>::min();
          const double err = std::fabs(static_cast<double>(static_cast<long double>(g) - ref.value()));
          bad = !(err <= tol) && !(std::isnan(g) && std::isnan(static_cast<double>(ref.value())));
          if (!std::isnan(err)) rep.max_error = std::max(rep.max_error, err / tol);
        } else {
          bad = g != ref.value();
        }
        ++rep.checked;
        if (bad && rep.mismatches++ == 0) {
          rep.first_index = block.begin + j;
          rep.first = fmt::format("got {}, expected {}", g, static_cast<Out>(ref.value()));
        }
        if (j + 1 == w->end()) ++w;
      }
      if (mode == Mode::exclusive) ref.add(x);
    }
  }
  VerifyReport total;
  for (const VerifyReport& p : part) {
    total.checked += p.checked;
    total.max_error = std::max(total.max_error, p.max_error);
    if (p.mismatches > 0 && total.mismatches == 0) {
      total.first_index = p.first_index;
      total.first = p.first;
    }
    total.mismatches += p.mismatches;
  }
  return total;
}

}  // namespace tessera::scan
