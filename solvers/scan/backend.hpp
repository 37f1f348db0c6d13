#pragma once
// LocalScan: one rank's scan of the elements it holds, by one variant. The distributed scan
// (distributed.hpp), the solver, the tests and the benchmark all drive the variants through
// this interface, so a variant is added in one place.
//
//   auto scan = make_local_scan<std::int32_t, std::int64_t>(Variant::lookback, stream);
//   scan->scan(d_in, d_out, n, Mode::inclusive, 0);   // queued on `stream`
//   scan->synchronize();
//
// Semantics: out[i] = offset + in[0] + ... + in[i] (inclusive) or + in[i-1] (exclusive,
// out[0] = offset), in the output type, for any n >= 0 (64-bit). Integer sums wrap modulo
// 2^bits; in == out (in place) is allowed when In and Out are the same type.
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "core/backend.hpp"
#include "core/stream.hpp"
#include "solvers/scan/types.hpp"

namespace tessera::scan {

template <class In, class Out>
class LocalScan {
 public:
  using Wide = wide_t<Out>;
  virtual ~LocalScan() = default;

  virtual Variant variant() const = 0;
  // Where `in` and `out` must live: host memory for cpu and cpu-serial, device memory otherwise.
  virtual Memory memory() const = 0;

  // The whole scan. Device variants queue it on their stream and return; host ones finish it.
  virtual void scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset) = 0;

  // The same scan in two phases, for when the offset is known only later (the distributed scan
  // exchanges the ranks' totals in between). begin() does what the variant can do without the
  // offset and returns this block's total (it waits for the device); with need_total false it
  // may skip work that only the total needs and return 0. finish() completes `out` with the
  // offset. Variants fuse the offset where they can: the seed kernels into their final add,
  // lookback/cub/thrust/cpu by seeding the scan itself after a reduction for the total.
  virtual Wide begin(const In* in, Out* out, std::int64_t n, Mode mode, bool need_total) = 0;
  virtual void finish(Wide offset) = 0;

  // The same two phases without leaving the device, for variants whose scan can read its
  // offset from device memory (lookback): queued_begin() queues the total of the block (0
  // without need_total) into slot `rank` of device_totals(ranks) and returns at once; when work
  // queued after it has filled the slots of the ranks before (the distributed scan exchanges
  // them on a device transport), queued_finish() sums those on the device and scans with it.
  virtual bool queued_offsets() const { return false; }
  virtual Wide* device_totals(int ranks) {
    (void)ranks;
    throw std::logic_error("this scan variant takes its offset from the host");
  }
  virtual void queued_begin(const In* in, Out* out, std::int64_t n, Mode mode, int rank, bool need_total) {
    (void)in, (void)out, (void)n, (void)mode, (void)rank, (void)need_total;
    throw std::logic_error("this scan variant takes its offset from the host");
  }
  virtual void queued_finish() { throw std::logic_error("this scan variant takes its offset from the host"); }

  // Waits for everything queued (no-op on the host).
  virtual void synchronize() = 0;
  // The stream device work is queued on (nullptr for host variants).
  virtual stream_t stream() const = 0;
};

// Builds `variant` (not Variant::automatic: resolve it first). Device variants run on `stream`
// (not owned; nullptr is the default stream). A device variant in a build without CUDA throws
// InputError saying so.
template <class In, class Out>
std::unique_ptr<LocalScan<In, Out>> make_local_scan(Variant variant, stream_t stream = nullptr);

// auto -> lookback where the device runs the scan (cub when `widening`: input and output types
// of different sizes), cpu otherwise.
Variant resolve_variant(Variant requested, Backend backend, bool widening = false);

}  // namespace tessera::scan
