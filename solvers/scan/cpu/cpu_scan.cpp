#include "solvers/scan/cpu/cpu_scan.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "core/partition.hpp"
#include "solvers/scan/accumulator.hpp"

namespace tessera::scan {
namespace {

// Below this many elements per thread the threads cost more than they save.
constexpr std::int64_t kMinPerThread = 1 << 15;

int threads_for(std::int64_t n) {
  const std::int64_t useful = std::max<std::int64_t>(1, n / kMinPerThread);
  return static_cast<int>(std::min<std::int64_t>(omp_get_max_threads(), useful));
}

}  // namespace

template <class In, class Out>
void serial_scan(const In* in, Out* out, std::int64_t n, Mode mode, wide_t<Out> offset) {
  HostAccumulator<Out> acc(offset);
  if (mode == Mode::inclusive) {
    for (std::int64_t i = 0; i < n; ++i) {
      acc.add(in[i]);
      out[i] = acc.out();
    }
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      const In x = in[i];  // read before the write: in == out is allowed
      out[i] = acc.out();
      acc.add(x);
    }
  }
}

template <class In, class Out>
wide_t<Out> host_total(const In* in, std::int64_t n, bool parallel) {
  const int threads = parallel ? threads_for(n) : 1;
  if (threads <= 1) {
    HostAccumulator<Out> acc(0);
    for (std::int64_t i = 0; i < n; ++i) acc.add(in[i]);
    return acc.wide();
  }
  std::vector<wide_t<Out>> part(static_cast<std::size_t>(threads), 0);
  int used = threads;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single
    used = nt;
    const Range r = block_range(n, nt, t);
    HostAccumulator<Out> acc(0);
    for (std::int64_t i = r.begin; i < r.end(); ++i) acc.add(in[i]);
    part[static_cast<std::size_t>(t)] = acc.wide();
  }
  HostAccumulator<Out> total(0);
  for (int t = 0; t < used; ++t) total.add(part[static_cast<std::size_t>(t)]);
  return total.wide();
}

template <class In, class Out>
void parallel_scan(const In* in, Out* out, std::int64_t n, Mode mode, wide_t<Out> offset) {
  const int threads = threads_for(n);
  if (threads <= 1) return serial_scan(in, out, n, mode, offset);
  std::vector<wide_t<Out>> part(static_cast<std::size_t>(threads), 0);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const Range r = block_range(n, nt, t);
    HostAccumulator<Out> sum(0);
    for (std::int64_t i = r.begin; i < r.end(); ++i) sum.add(in[i]);
    part[static_cast<std::size_t>(t)] = sum.wide();
#pragma omp barrier
    HostAccumulator<Out> seed(offset);  // offset + the chunks before this one, in order
    for (int u = 0; u < t; ++u) seed.add(part[static_cast<std::size_t>(u)]);
    serial_scan(in + r.begin, out + r.begin, r.count, mode, seed.wide());
  }
}

#define TESSERA_SCAN_INSTANTIATE(In, Out)                                               \
  template void serial_scan<In, Out>(const In*, Out*, std::int64_t, Mode, wide_t<Out>);   \
  template void parallel_scan<In, Out>(const In*, Out*, std::int64_t, Mode, wide_t<Out>); \
  template wide_t<Out> host_total<In, Out>(const In*, std::int64_t, bool);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan
