#pragma once
// Engine: where this rank's bodies live (host vectors or device buffers) and the few
// operations a step needs on them. The cpu and cuda engines implement it; the solver, the
// ring and the benchmark are written against it alone.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/stream.hpp"
#include "solvers/nbody/forces.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

// What one block of a force pass does (see ring_forces.hpp).
template <class T>
struct BlockPass {
  bool first = true;       // acc = sum of this block (else acc += it)
  bool last = true;        // the pass ends with this block: apply kick_dt if set
  bool potential = false;  // also the potential (acc.w)
  bool scratch = false;    // write the scratch buffer instead of acc (a potential-only pass)
  T kick_dt = 0;           // != 0: v += acc * kick_dt after the last block
};

struct EngineOptions {
  double G = 1.0;
  double eps = 0.0;
  std::int64_t offset = 0;  // global index of this rank's first body
  int cpu_threads = 1;      // cpu engine: OpenMP threads
  KernelConfig kernel;      // cuda engine: requested shape (zeros: chosen per N and GPU)
};

template <class T>
class Engine {
 public:
  virtual ~Engine() = default;
  virtual Memory memory() const = 0;
  virtual std::int64_t size() const = 0;
  virtual std::string describe() const = 0;  // for the run log: "cuda, tiled g128 s1 b4"

  // Whole local state between the host and the engine (synchronous).
  virtual void upload(const HostBodies<T>& bodies) = 0;
  virtual void download(HostBodies<T>& bodies) = 0;         // pos_mass, vel, acc
  virtual void download_scratch(std::vector<Vec4<T>>& out) = 0;  // the last scratch pass

  // Every body of the run (all ranks) has mass m > 0, or 0: not known. Set after upload (by
  // upload_bodies, common_mass.hpp); the cuda engine's split kernel uses it, the cpu kernel
  // reads each mass.
  virtual void set_common_mass(T m) = 0;

  // v += acc * kick_dt; x += v * drift_dt (queued on stream()).
  virtual void kick_drift(T kick_dt, T drift_dt) = 0;
  // This rank's positions and masses in engine memory, and a queued copy of them to `dst`
  // (a ring buffer in the same memory).
  virtual const Vec4<T>* bodies() const = 0;
  virtual void copy_bodies_to(void* dst) = 0;
  // Forces on this rank's bodies from sources [0, n) (engine memory), whose first body has
  // global index `offset`. Queued on stream().
  virtual void interact(const Vec4<T>* sources, std::int64_t n, std::int64_t offset, const BlockPass<T>& pass) = 0;

  virtual stream_t stream() const = 0;  // nullptr for host memory
  virtual void synchronize() = 0;
};

// This rank's buffers as one pass over a block of sources sees them: which output (acc or the
// potential-only scratch), accumulate or overwrite, and the kick after the last block. The
// cpu and cuda engines build their ForceArgs here, so they cannot differ.
template <class T>
ForceArgs<T> block_pass_args(const Vec4<T>* targets, std::int64_t n_targets, const EngineOptions& o, T eps2,
                             Vec4<T>* acc, Vec4<T>* scratch, Vec4<T>* vel, const Vec4<T>* sources,
                             std::int64_t n_sources, std::int64_t source_offset, const BlockPass<T>& pass) {
  ForceArgs<T> f;
  f.targets = targets;
  f.n_targets = n_targets;
  f.target_offset = o.offset;
  f.sources = sources;
  f.n_sources = n_sources;
  f.source_offset = source_offset;
  f.acc = pass.scratch ? scratch : acc;
  f.accumulate = !pass.first;
  f.potential = pass.potential;
  f.G = static_cast<T>(o.G);
  f.eps2 = eps2;
  if (pass.last && pass.kick_dt != T(0) && !pass.scratch) {
    f.vel = vel;
    f.kick_dt = pass.kick_dt;
  }
  return f;
}

template <class T>
std::unique_ptr<Engine<T>> make_cpu_engine(std::int64_t n_local, const EngineOptions& options);
// Throws CudaError in a build without CUDA. The kernel shape is resolved here, for n_local
// targets and about n_total / ranks sources per block, on the bound GPU.
template <class T>
std::unique_ptr<Engine<T>> make_cuda_engine(std::int64_t n_local, std::int64_t block_sources,
                                            const EngineOptions& options);

}  // namespace tessera::nbody
