#include "solvers/scan/job.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "comm/collectives.hpp"
#include "core/buffer.hpp"
#include "core/partition.hpp"
#include "io/checksum.hpp"
#include "io/h5_dataset.hpp"
#include "io/units.hpp"
#include "solvers/scan/input.hpp"
#if defined(TESSERA_HAVE_CUDA)
#include "solvers/scan/cuda/device_scan.hpp"
#endif

namespace tessera::scan {
namespace {

template <class In, class Out>
class Job final : public ScanJob {
 public:
  Job(comm::Context& ctx, comm::Transport& transport, const Params& setup, stream_t stream)
      : ctx_(ctx), transport_(transport), setup_(setup), block_(block_range(setup.length, ctx.size(), ctx.rank())),
        local_(make_local_scan<In, Out>(setup.variant, stream)) {}

  Memory memory() const override { return local_->memory(); }
  bool has_result() const override { return has_result_; }

  void load() override {
    const auto count = static_cast<std::size_t>(block_.count);
    if (memory() == Memory::device) {
      in_device_ = DeviceBuffer<In>(count);
      out_device_ = DeviceBuffer<Out>(count);
      if (count > 0) fill_device_bytes(out_device_.data(), 0xFF, out_device_.bytes());  // unwritten elements show
    } else {
      out_host_.assign(count, poison());
    }
    if (setup_.input.from_file) {
      input_host_ = read_block<In>(ctx_, setup_.input.file, setup_.input.dataset, block_.begin, block_.count);
      if (memory() == Memory::device) {
        in_device_.upload(input_host_);
        if (setup_.verify == VerifyMode::none) input_host_ = {};  // the device copy is enough
      }
    } else if (memory() == Memory::device) {
#if defined(TESSERA_HAVE_CUDA)
      generate_device(in_device_.data(), block_.count, block_.begin, setup_.input.generator, local_->stream());
      local_->synchronize();
#endif
    } else {
      input_host_.resize(count);
      generate_values(input_host_.data(), block_.count, block_.begin, setup_.input.generator);
    }
    // The fill and the upload ran on the default stream, which the scan's stream does not wait for.
    if (memory() == Memory::device) synchronize(nullptr);
  }

  PhaseTimes run() override {
    const auto result = distributed_scan(ctx_, *local_, input(), output(), block_.count, setup_.mode, &transport_);
    has_result_ = true;
    return result.times;
  }

  void write(const io::Group& root) override {
    const std::vector<Out> out = download(output(), 0, block_.count);
    io::write_units(io::write_1d<Out>(root, "scan", out, block_.begin, setup_.length), io::kDimensionless);
    if (setup_.write_input)
      io::write_units(io::write_1d<In>(root, "input", input_on_host(), block_.begin, setup_.length),
                      io::kDimensionless);
  }

  GlobalVerifyReport verify() override {
    GlobalVerifyReport g;
    g.local = verify_local();
    g.checked = comm::allreduce(ctx_, g.local.checked, comm::Op::sum);
    g.mismatches = comm::allreduce(ctx_, g.local.mismatches, comm::Op::sum);
    g.max_error = comm::allreduce(ctx_, g.local.max_error, comm::Op::max);
    return g;
  }

  std::uint64_t input_checksum() override {
    const std::vector<In> in = input_on_host();
    return io::checksum_global(ctx_, io::checksum_local<In>(in, block_.begin));
  }

 private:
  static Out poison() {
    Out p;
    std::memset(&p, 0xFF, sizeof p);
    return p;
  }

  const In* input() const { return memory() == Memory::device ? in_device_.data() : input_host_.data(); }
  Out* output() { return memory() == Memory::device ? out_device_.data() : out_host_.data(); }

  // Elements [first, first + count) of `data` (in the job's memory) on the host.
  template <class T>
  std::vector<T> download(const T* data, std::int64_t first, std::int64_t count) const {
    std::vector<T> host(static_cast<std::size_t>(count));
    if (count > 0) copy_bytes(host.data(), data + first, host.size() * sizeof(T));
    return host;
  }

  std::vector<In> input_on_host() const {
    if (memory() == Memory::host || !input_host_.empty() || block_.count == 0) return input_host_;
    return download(in_device_.data(), 0, block_.count);
  }

  VerifyReport verify_local() {
    // The reference reads the input from the host copy, or regenerates it, or (a file input
    // that was not kept) fetches it from the device.
    std::vector<In> fetched;
    const bool generated = input_host_.empty() && !setup_.input.from_file;
    if (input_host_.empty() && setup_.input.from_file) fetched = input_on_host();
    const In* host = input_host_.empty() ? fetched.data() : input_host_.data();
    const Generator gen = setup_.input.generator;
    const std::int64_t first = block_.begin;
    auto input_at = [&](std::int64_t j) { return generated ? generated_value<In>(gen, first + j) : host[j]; };

    const ReferenceChunks<Out> chunks = reference_chunks<Out>(input_at, block_.count);
    const ReferenceSum<Out> mine = chunks.total();
    ReferenceSum<Out> before;
    if constexpr (std::is_floating_point_v<Out>) {
      before.sum = comm::exscan(ctx_, static_cast<double>(mine.sum));
      before.magnitude = comm::exscan(ctx_, static_cast<double>(mine.magnitude));
    } else {
      before.sum = comm::exscan(ctx_, mine.sum);  // uint64: wraps by definition
    }

    std::vector<Range> windows;
    if (setup_.verify == VerifyMode::full) {
      if (block_.count > 0) windows.push_back({0, block_.count});
    } else {
      windows = sample_windows(setup_.length, block_, setup_.verify_windows);
    }
    std::vector<Out> got;
    for (const Range& w : windows) {
      const std::vector<Out> part = download(output(), w.begin, w.count);
      got.insert(got.end(), part.begin(), part.end());
    }
    return compare_windows<In, Out>(input_at, block_, setup_.length, setup_.mode, before, chunks, windows,
                                    got.data());
  }

  comm::Context& ctx_;
  comm::Transport& transport_;
  Params setup_;
  Range block_;
  std::unique_ptr<LocalScan<In, Out>> local_;
  DeviceBuffer<In> in_device_;
  DeviceBuffer<Out> out_device_;
  std::vector<In> input_host_;  // the input on the host: host variants, or a file input kept for checks
  std::vector<Out> out_host_;
  bool has_result_ = false;
};

}  // namespace

std::unique_ptr<ScanJob> make_job(comm::Context& ctx, comm::Transport& transport, const Params& s,
                                  stream_t stream) {
  using I32 = std::int32_t;
  using I64 = std::int64_t;
  switch (s.input_type) {
    case ValueType::int32:
      if (s.output_type == ValueType::int64) return std::make_unique<Job<I32, I64>>(ctx, transport, s, stream);
      return std::make_unique<Job<I32, I32>>(ctx, transport, s, stream);
    case ValueType::int64: return std::make_unique<Job<I64, I64>>(ctx, transport, s, stream);
    case ValueType::float32: return std::make_unique<Job<float, float>>(ctx, transport, s, stream);
    case ValueType::float64: return std::make_unique<Job<double, double>>(ctx, transport, s, stream);
  }
  throw std::logic_error("make_job: unknown value type");
}

}  // namespace tessera::scan
