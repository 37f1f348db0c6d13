#pragma once
// The host scans: the seed's serial loop (cpu-serial) and an OpenMP version (cpu) that splits
// the block into one chunk per thread, sums the chunks, scans the chunk sums, and scans each
// chunk seeded with its prefix (two reads and one write per element).
//
// Floating-point sums are accumulated more precisely than the output type (float in double,
// double with Neumaier's compensation), so the host scans are the accurate reference the GPU
// variants are verified against; integer sums wrap exactly like the GPU's.
#include <cstdint>

#include "solvers/scan/types.hpp"

namespace tessera::scan {

template <class In, class Out>
void serial_scan(const In* in, Out* out, std::int64_t n, Mode mode, wide_t<Out> offset);

template <class In, class Out>
void parallel_scan(const In* in, Out* out, std::int64_t n, Mode mode, wide_t<Out> offset);

// The sum of in[0..n) in the wide type (wrapping for integers), serially or with OpenMP.
template <class In, class Out>
wide_t<Out> host_total(const In* in, std::int64_t n, bool parallel);

}  // namespace tessera::scan
