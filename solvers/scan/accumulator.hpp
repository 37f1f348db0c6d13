#pragma once
// How the host scans accumulate: integers wrap in the output type (like the GPU), float sums
// run in double, double sums carry Neumaier's compensation term. Seeded with a wide offset.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "solvers/scan/types.hpp"

namespace tessera::scan {

template <class Out, class Enable = void>
struct HostAccumulator;

template <class Out>
struct HostAccumulator<Out, std::enable_if_t<std::is_integral_v<Out>>> {
  Out sum;
  explicit HostAccumulator(wide_t<Out> start) : sum(static_cast<Out>(start)) {}
  template <class In>
  void add(In x) { sum = scan_add(sum, static_cast<Out>(x)); }
  Out out() const { return sum; }
  wide_t<Out> wide() const { return sum; }
};

template <>
struct HostAccumulator<float> {
  double sum;
  explicit HostAccumulator(double start) : sum(start) {}
  template <class In>
  void add(In x) { sum += static_cast<double>(x); }
  float out() const { return static_cast<float>(sum); }
  double wide() const { return sum; }
};

template <>
struct HostAccumulator<double> {
  double sum, compensation = 0.0;
  explicit HostAccumulator(double start) : sum(start) {}
  template <class In>
  void add(In value) {
    const double x = static_cast<double>(value);
    const double t = sum + x;
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double out() const { return sum + compensation; }
  double wide() const { return sum + compensation; }
};

}  // namespace tessera::scan
