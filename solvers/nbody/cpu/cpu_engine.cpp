// The cpu engine: host vectors and the OpenMP kernels.
#include <fmt/format.h>

#include <cstring>

#include "solvers/nbody/backend.hpp"
#include "solvers/nbody/pair_force.hpp"

namespace tessera::nbody {
namespace {

template <class T>
class CpuEngine final : public Engine<T> {
 public:
  CpuEngine(std::int64_t n, const EngineOptions& o)
      : n_(n), o_(o), eps2_(softening2<T>(o.eps)), x_(n), v_(n), a_(n), scratch_(n) {}

  Memory memory() const override { return Memory::host; }
  std::int64_t size() const override { return n_; }
  std::string describe() const override { return fmt::format("cpu, {} OpenMP thread(s)", o_.cpu_threads); }

  void upload(const HostBodies<T>& b) override {
    x_ = b.pos_mass;
    v_ = b.vel;
    a_ = b.acc;
  }
  void download(HostBodies<T>& b) override {
    b.pos_mass = x_;
    b.vel = v_;
    b.acc = a_;
  }
  void download_scratch(std::vector<Vec4<T>>& out) override { out = scratch_; }
  void set_common_mass(T) override {}  // the reference reads every mass

  void kick_drift(T kick_dt, T drift_dt) override {
    kick_drift_cpu<T>(x_.data(), v_.data(), a_.data(), n_, kick_dt, drift_dt, o_.cpu_threads);
  }
  const Vec4<T>* bodies() const override { return x_.data(); }
  void copy_bodies_to(void* dst) override {
    if (n_ > 0) std::memcpy(dst, x_.data(), static_cast<std::size_t>(n_) * sizeof(Vec4<T>));
  }
  void interact(const Vec4<T>* sources, std::int64_t n, std::int64_t offset, const BlockPass<T>& pass) override {
    const ForceArgs<T> f = block_pass_args<T>(x_.data(), n_, o_, eps2_, a_.data(), scratch_.data(), v_.data(), sources,
                                              n, offset, pass);
    forces_cpu<T>(f, o_.cpu_threads);
  }
  stream_t stream() const override { return nullptr; }
  void synchronize() override {}

 private:
  std::int64_t n_;
  EngineOptions o_;
  T eps2_;
  std::vector<Vec4<T>> x_, v_, a_, scratch_;
};

}  // namespace

template <class T>
std::unique_ptr<Engine<T>> make_cpu_engine(std::int64_t n_local, const EngineOptions& options) {
  return std::make_unique<CpuEngine<T>>(n_local, options);
}

template std::unique_ptr<Engine<float>> make_cpu_engine<float>(std::int64_t, const EngineOptions&);
template std::unique_ptr<Engine<double>> make_cpu_engine<double>(std::int64_t, const EngineOptions&);

}  // namespace tessera::nbody
