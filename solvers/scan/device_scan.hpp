#pragma once
// Entry points into the CUDA part of the scan library (solvers/scan/cuda/*.cu). Host code
// includes this header without the CUDA headers; the definitions exist only in CUDA builds
// (TESSERA_HAVE_CUDA), so callers guard their uses.
#include <cstdint>
#include <memory>

#include "core/stream.hpp"
#include "solvers/scan/generate.hpp"
#include "solvers/scan/local_scan.hpp"

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

}  // namespace tessera::scan
