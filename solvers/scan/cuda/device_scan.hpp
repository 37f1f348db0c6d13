#pragma once
// Entry points into the CUDA part of the scan library (solvers/scan/cuda/*.cu). Host code
// includes this header without the CUDA headers; the definitions exist only in CUDA builds
// (TESSERA_HAVE_CUDA), so callers guard their uses.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/stream.hpp"
#include "solvers/scan/generate.hpp"
#include "solvers/scan/backend.hpp"

namespace tessera::scan {

// A device LocalScan of a GPU variant (lookback, cub, thrust, blelloch-padded, blelloch,
// hillis-steele), with its own workspace (grown on demand, reused between calls).
template <class In, class Out>
std::unique_ptr<LocalScan<In, Out>> make_device_scan(Variant variant, stream_t stream);

// Fills out[0..count) with elements first .. first + count - 1 of the generated input, on the
// device (queued on `stream`). Bitwise the same values as the host's generate_values().
template <class T>
void generate_device(T* out, std::int64_t count, std::int64_t first, const Generator& gen, stream_t stream);

// For tuning (the benchmark): an inclusive int32 lookback scan with another tile shape than
// the default, (threads, items per thread) in {(128, 16), (128, 24), (128, 32), (256, 16),
// (256, 24)}; nullptr for other shapes.
std::unique_ptr<LocalScan<std::int32_t, std::int32_t>> make_lookback_int32_shape(int threads, int items,
                                                                                   stream_t stream);

// Candidate policies of the look-back scan (solvers/scan/cuda/lookback_candidates.cuh explains
// their names), compared by `tessera bench scan` with TESSERA_BENCH_SCAN_LOOKBACK: the names for
// element type T (int32, int64, float, double), and a LocalScan<T, T> running one (variant()
// says lookback; nullptr for an unknown name).
template <class T>
std::vector<std::string> lookback_candidate_names();
template <class T>
std::unique_ptr<LocalScan<T, T>> make_lookback_candidate(const std::string& name, stream_t stream);

// Number of elements in which the device arrays a[0..n) and b[0..n) differ bitwise (T: int32,
// int64, float, double); waits for `stream`.
template <class T>
std::int64_t count_device_differences(const T* a, const T* b, std::int64_t n, stream_t stream);

}  // namespace tessera::scan
