// The GPU variants behind the LocalScan interface: each owns its workspaces (kept between
// calls) and queues everything on the stream it was given.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/kernels.hpp"
#include "solvers/scan/cuda/device_scan.hpp"

namespace tessera::scan {
namespace {

bool is_seed(Variant v) {
  return v == Variant::hillis_steele || v == Variant::blelloch || v == Variant::blelloch_padded;
}

gpu::SeedKind seed_kind(Variant v) {
  switch (v) {
    case Variant::hillis_steele: return gpu::SeedKind::hillis_steele;
    case Variant::blelloch: return gpu::SeedKind::blelloch;
    default: return gpu::SeedKind::blelloch_padded;
  }
}

template <class In, class Out>
class DeviceLocalScan final : public LocalScan<In, Out> {
 public:
  using Wide = wide_t<Out>;
  DeviceLocalScan(Variant v, stream_t stream, int shape_threads = 0, int shape_items = 0, std::string candidate = {})
      : variant_(v),
        stream_(stream),
        shape_threads_(shape_threads),
        shape_items_(shape_items),
        candidate_(std::move(candidate)) {
    if (is_host_variant(v) || v == Variant::automatic)
      throw std::logic_error("DeviceLocalScan: not a device variant");
  }

  Variant variant() const override { return variant_; }
  Memory memory() const override { return Memory::device; }
  stream_t stream() const override { return stream_; }
  void synchronize() override { tessera::synchronize(stream_); }

  void scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset) override {
    run(in, out, n, mode, offset);
  }

  Wide begin(const In* in, Out* out, std::int64_t n, Mode mode, bool need_total) override {
    in_ = in;
    out_ = out;
    n_ = n;
    mode_ = mode;
    if (n <= 0) return Wide{0};
    if (is_seed(variant_)) {
      // The block scans and the recursion happen now; the total falls out of the top level.
      const Out* total = gpu::seed_begin(seed_kind(variant_), in, out, n, mode, seed_levels_, stream_);
      copy_bytes_async(seed_total_.data(), total, sizeof(Out), stream_);
      synchronize();
      return static_cast<Wide>(seed_total_.data()[0]);
    }
    // The single-pass variants seed their scan with the offset in finish(); the total needs a
    // reduction first (one extra read), and only ranks that pass their total on need it.
    if (!need_total) return Wide{0};
    gpu::reduce_sum<In, Wide>(in, n, total_device_.data(), reduce_, stream_);
    copy_bytes_async(total_host_.data(), total_device_.data(), sizeof(Wide), stream_);
    synchronize();
    return total_host_.data()[0];
  }

  bool queued_offsets() const override {
    return variant_ == Variant::lookback && candidate_.empty() && shape_threads_ == 0;
  }

  Wide* device_totals(int ranks) override {
    if (totals_.size() < static_cast<std::size_t>(ranks)) totals_ = DeviceBuffer<Wide>(static_cast<std::size_t>(ranks));
    return totals_.data();
  }

  void queued_begin(const In* in, Out* out, std::int64_t n, Mode mode, int rank, bool need_total) override {
    if (!queued_offsets()) LocalScan<In, Out>::queued_begin(in, out, n, mode, rank, need_total);
    in_ = in;
    out_ = out;
    n_ = n;
    mode_ = mode;
    rank_ = rank;
    Wide* slot = totals_.data() + rank;
    if (need_total) gpu::reduce_sum<In, Wide>(in, n, slot, reduce_, stream_);  // 0 for n = 0
    else TESSERA_CUDA_CHECK(cudaMemsetAsync(slot, 0, sizeof(Wide), stream_));
  }

  void queued_finish() override {
    gpu::rank_offset<Wide, Out>(totals_.data(), rank_, offset_device_.data(), stream_);
    gpu::lookback_scan_offset_at(in_, out_, n_, mode_, static_cast<const Out*>(offset_device_.data()), lookback_,
                                 stream_);
  }

  void finish(Wide offset) override {
    if (is_seed(variant_))
      gpu::seed_finish(seed_kind(variant_), out_, n_, static_cast<Out>(offset), seed_levels_, stream_);
    else
      run(in_, out_, n_, mode_, static_cast<Out>(offset));
  }

 private:
  void run(const In* in, Out* out, std::int64_t n, Mode mode, Out offset) {
    switch (variant_) {
      case Variant::lookback:
        if constexpr (std::is_same_v<In, Out>) {
          if (!candidate_.empty()) {
            gpu::lookback_candidate_scan(candidate_, in, out, n, mode, offset, lookback_, stream_);
            return;
          }
        }
        if constexpr (std::is_same_v<In, std::int32_t> && std::is_same_v<Out, std::int32_t>) {
          if (shape_threads_ > 0) {
            gpu::lookback_scan_int32_shape(in, out, n, mode, offset, shape_threads_, shape_items_, lookback_, stream_);
            return;
          }
        }
        gpu::lookback_scan(in, out, n, mode, offset, lookback_, stream_);
        return;
      case Variant::cub: gpu::cub_scan(in, out, n, mode, offset, temp_, stream_); return;
      case Variant::thrust: gpu::thrust_scan(in, out, n, mode, offset, temp_, stream_); return;
      default: gpu::seed_scan(seed_kind(variant_), in, out, n, mode, offset, seed_levels_, stream_); return;
    }
  }

  Variant variant_;
  stream_t stream_;
  int shape_threads_, shape_items_;
  std::string candidate_;  // a look-back candidate's name (lookback only), or empty
  gpu::LookbackWorkspace lookback_;
  gpu::ReduceWorkspace reduce_;
  gpu::SeedLevels<Out> seed_levels_;
  gpu::TempStorage temp_;
  DeviceBuffer<Wide> total_device_{1};
  PinnedBuffer<Wide> total_host_{1};
  PinnedBuffer<Out> seed_total_{1};
  DeviceBuffer<Wide> totals_;            // queued_begin(): one slot per rank
  DeviceBuffer<Out> offset_device_{1};   // queued_finish(): this rank's offset
  int rank_ = 0;
  // begin() -> finish()
  const In* in_ = nullptr;
  Out* out_ = nullptr;
  std::int64_t n_ = 0;
  Mode mode_ = Mode::inclusive;
};

}  // namespace

template <class In, class Out>
std::unique_ptr<LocalScan<In, Out>> make_device_scan(Variant variant, stream_t stream) {
  return std::make_unique<DeviceLocalScan<In, Out>>(variant, stream);
}

std::unique_ptr<LocalScan<std::int32_t, std::int32_t>> make_lookback_int32_shape(int threads, int items,
                                                                                   stream_t stream) {
  const bool known = (threads == 128 && (items == 16 || items == 24 || items == 32)) ||
                     (threads == 256 && (items == 16 || items == 24));
  if (!known) return nullptr;
  return std::make_unique<DeviceLocalScan<std::int32_t, std::int32_t>>(Variant::lookback, stream, threads, items);
}

template <class T>
std::vector<std::string> lookback_candidate_names() {
  return gpu::lookback_candidates<T>();
}

template <class T>
std::unique_ptr<LocalScan<T, T>> make_lookback_candidate(const std::string& name, stream_t stream) {
  const auto names = gpu::lookback_candidates<T>();
  if (std::find(names.begin(), names.end(), name) == names.end()) return nullptr;
  return std::make_unique<DeviceLocalScan<T, T>>(Variant::lookback, stream, 0, 0, name);
}

template <class T>
std::int64_t count_device_differences(const T* a, const T* b, std::int64_t n, stream_t stream) {
  return gpu::count_differences(a, b, n, stream);
}

#define TESSERA_SCAN_INSTANTIATE(In, Out) \
  template std::unique_ptr<LocalScan<In, Out>> make_device_scan<In, Out>(Variant, stream_t);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

#define TESSERA_SCAN_INSTANTIATE(T)                                                                          \
  template std::vector<std::string> lookback_candidate_names<T>();                                           \
  template std::unique_ptr<LocalScan<T, T>> make_lookback_candidate<T>(const std::string&, stream_t);        \
  template std::int64_t count_device_differences<T>(const T*, const T*, std::int64_t, stream_t);
TESSERA_SCAN_INSTANTIATE(std::int32_t)
TESSERA_SCAN_INSTANTIATE(std::int64_t)
TESSERA_SCAN_INSTANTIATE(float)
TESSERA_SCAN_INSTANTIATE(double)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan
