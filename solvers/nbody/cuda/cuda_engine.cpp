// The cuda engine: device buffers, one compute stream, the kernels of cuda/forces.cu. Host
// code: only the kernels need nvcc.
#include <fmt/format.h>

#include <stdexcept>

#include "core/buffer.hpp"
#include "core/error.hpp"
#include "solvers/nbody/backend.hpp"
#include "solvers/nbody/pair_force.hpp"

namespace tessera::nbody {

#if defined(TESSERA_HAVE_CUDA)
namespace {

template <class T>
class CudaEngine final : public Engine<T> {
 public:
  CudaEngine(std::int64_t n, const KernelConfig& kernel, const EngineOptions& o)
      : n_(n),
        o_(o),
        kernel_(kernel),
        eps2_(softening2<T>(o.eps)),
        x_(n),
        v_(n),
        a_(n),
        scratch_(n),
        partials_(partials_needed(kernel, n)) {}

  Memory memory() const override { return Memory::device; }
  std::int64_t size() const override { return n_; }
  std::string describe() const override {
    return fmt::format("cuda, {}{}", kernel_.describe(), common_mass_ > T(0) ? ", equal masses" : "");
  }

  void upload(const HostBodies<T>& b) override {
    if (n_ == 0) return;  // a rank without bodies (N < ranks) has no buffers
    x_.upload(b.pos_mass);
    v_.upload(b.vel);
    a_.upload(b.acc);
  }
  void download(HostBodies<T>& b) override {
    stream_.synchronize();
    b.pos_mass.resize(n_);
    b.vel.resize(n_);
    b.acc.resize(n_);
    if (n_ == 0) return;
    x_.download(b.pos_mass);
    v_.download(b.vel);
    a_.download(b.acc);
  }
  void download_scratch(std::vector<Vec4<T>>& out) override {
    stream_.synchronize();
    out.resize(n_);
    if (n_ > 0) scratch_.download(out);
  }

  void set_common_mass(T m) override { common_mass_ = m; }

  void kick_drift(T kick_dt, T drift_dt) override {
    kick_drift_cuda<T>(x_.data(), v_.data(), a_.data(), n_, kick_dt, drift_dt, stream_);
  }
  const Vec4<T>* bodies() const override { return x_.data(); }
  void copy_bodies_to(void* dst) override {
    if (n_ > 0) copy_bytes_async(dst, x_.data(), x_.bytes(), stream_);
  }
  void interact(const Vec4<T>* sources, std::int64_t n, std::int64_t offset, const BlockPass<T>& pass) override {
    ForceArgs<T> f = block_pass_args<T>(x_.data(), n_, o_, eps2_, a_.data(), scratch_.data(), v_.data(), sources, n,
                                        offset, pass);
    f.partials = partials_.data();
    f.partials_capacity = static_cast<std::int64_t>(partials_.size());
    f.common_mass = common_mass_;
    forces_cuda<T>(f, kernel_, stream_);
  }
  stream_t stream() const override { return stream_.get(); }
  void synchronize() override { stream_.synchronize(); }

 private:
  std::int64_t n_;
  EngineOptions o_;
  KernelConfig kernel_;
  T eps2_;
  T common_mass_ = 0;
  Stream stream_;
  DeviceBuffer<Vec4<T>> x_, v_, a_, scratch_;
  DeviceBuffer<Vec4<T>> partials_;  // the split kernel's partial sums (empty for the others)
};

}  // namespace

template <class T>
std::unique_ptr<Engine<T>> make_cuda_engine(std::int64_t n_local, std::int64_t block_sources,
                                            const EngineOptions& options) {
  KernelConfig kernel;
  try {
    kernel = resolve_config(options.kernel, n_local, block_sources, device_sm_count(), sizeof(T) == 8);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("[nbody.cuda]: {}", e.what()));
  }
  return std::make_unique<CudaEngine<T>>(n_local, kernel, options);
}
#else
template <class T>
std::unique_ptr<Engine<T>> make_cuda_engine(std::int64_t, std::int64_t, const EngineOptions&) {
  throw CudaError("the cuda backend is not compiled into this tessera");
}
#endif

template std::unique_ptr<Engine<float>> make_cuda_engine<float>(std::int64_t, std::int64_t, const EngineOptions&);
template std::unique_ptr<Engine<double>> make_cuda_engine<double>(std::int64_t, std::int64_t, const EngineOptions&);

}  // namespace tessera::nbody
