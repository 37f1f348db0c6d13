#include "solvers/scan/backend.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"
#include "solvers/scan/cpu/cpu_scan.hpp"
#if defined(TESSERA_HAVE_CUDA)
#include "solvers/scan/cuda/device_scan.hpp"
#endif

namespace tessera::scan {
namespace {

// cpu (OpenMP) and cpu-serial: host memory, no stream.
template <class In, class Out>
class HostLocalScan final : public LocalScan<In, Out> {
 public:
  using Wide = wide_t<Out>;
  explicit HostLocalScan(Variant v) : variant_(v), parallel_(v == Variant::cpu) {}

  Variant variant() const override { return variant_; }
  Memory memory() const override { return Memory::host; }
  stream_t stream() const override { return nullptr; }
  void synchronize() override {}

  void scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset) override {
    run(in, out, n, mode, static_cast<Wide>(offset));
  }
  Wide begin(const In* in, Out* out, std::int64_t n, Mode mode, bool need_total) override {
    in_ = in;
    out_ = out;
    n_ = n;
    mode_ = mode;
    return need_total ? host_total<In, Out>(in, n, parallel_) : Wide{0};
  }
  // The offset stays wide: a float sum seeded with a double offset keeps its precision.
  void finish(Wide offset) override { run(in_, out_, n_, mode_, offset); }

 private:
  void run(const In* in, Out* out, std::int64_t n, Mode mode, Wide offset) {
    if (parallel_)
      parallel_scan(in, out, n, mode, offset);
    else
      serial_scan(in, out, n, mode, offset);
  }

  Variant variant_;
  bool parallel_;
  const In* in_ = nullptr;
  Out* out_ = nullptr;
  std::int64_t n_ = 0;
  Mode mode_ = Mode::inclusive;
};

}  // namespace

template <class In, class Out>
std::unique_ptr<LocalScan<In, Out>> make_local_scan(Variant variant, [[maybe_unused]] stream_t stream) {
  if (variant == Variant::automatic) throw std::logic_error("make_local_scan: resolve Variant::automatic first");
  if (is_host_variant(variant)) return std::make_unique<HostLocalScan<In, Out>>(variant);
#if defined(TESSERA_HAVE_CUDA)
  return make_device_scan<In, Out>(variant, stream);
#else
  throw InputError(fmt::format("scan variant '{}' runs on a GPU, but this tessera was built without CUDA "
                               "(use variant \"cpu\" or \"cpu-serial\")",
                               to_string(variant)));
#endif
}

Variant resolve_variant(Variant requested, Backend backend, bool widening) {
  if (requested != Variant::automatic) return requested;
  if (backend != Backend::cuda) return Variant::cpu;
  // The fastest correct variant as measured (docs/performance.md, H100 and H200, 2026-11-22):
  // the own look-back scan on its bulk-copy engine, 1.07-1.53 x CUB at 2^20..2^30 int32 and
  // 1.03 x at 2^28 int64. Widening (int32 summed in int64) cannot use bulk copies, and there
  // CUB is faster (1.6 x the registers engine).
  return widening ? Variant::cub : Variant::lookback;
}

#define TESSERA_SCAN_INSTANTIATE(In, Out) \
  template std::unique_ptr<LocalScan<In, Out>> make_local_scan<In, Out>(Variant, stream_t);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan
