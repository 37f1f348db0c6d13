#pragma once
// The kernel interface: what the distributed SpMV and CG call on one rank, and what each
// backend's engine implements (cpu/: OpenMP, the reference; cuda/: device
// pointers and a stream, the same calls).
//
//   auto engine = make_engine<double>(Backend::cpu, {.variant = Variant::hybrid});
//   auto block = engine->prepare(csr);          // the variant's layout, in the engine's memory
//   engine->multiply(*block, x, y, false);      // y = A x, queued on engine->stream()
//   engine->synchronize();
//
// Pointers passed to an engine live in its memory() (host for cpu, device for cuda); Array
// holds such a vector. Kernels are queued on stream() and complete by synchronize(); calls
// that return a value (the dot products) wait themselves. Reductions sum in a fixed order
// (chunks of a fixed size, then the chunks in order), so a run repeats bit for bit whatever
// the thread count.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/stream.hpp"
#include "solvers/spmv/formats.hpp"
#include "solvers/spmv/matrix.hpp"
#include "solvers/spmv/types.hpp"

namespace tessera::spmv {

// A vector in host or device memory (value-initialised on the host; device memory is not
// initialised).
template <class T>
class Array {
 public:
  Array() = default;
  Array(Memory memory, std::size_t n) : memory_(memory) {
    if (memory == Memory::host)
      host_.assign(n, T{});
    else
      device_ = DeviceBuffer<T>(n);
  }
  Memory memory() const { return memory_; }
  std::size_t size() const { return memory_ == Memory::host ? host_.size() : device_.size(); }
  T* data() { return memory_ == Memory::host ? host_.data() : device_.data(); }
  const T* data() const { return memory_ == Memory::host ? host_.data() : device_.data(); }
  void upload(std::span<const T> values) {
    if (memory_ == Memory::host)
      host_.assign(values.begin(), values.end());
    else
      device_.upload(values);
  }
  std::vector<T> download() const {
    if (memory_ == Memory::host) return host_;
    std::vector<T> out(device_.size());
    device_.download(out);
    return out;
  }

 private:
  Memory memory_ = Memory::host;
  std::vector<T> host_;
  DeviceBuffer<T> device_;
};

// What an engine built for one block, for statistics and logs.
struct BlockInfo {
  template <class T>
  void describe_binned(const std::vector<BinnedBand<T>>& bands) {
    binned_bands = static_cast<int>(bands.size());
    binned_lanes = bands.empty() ? 0 : bands.front().layout.lanes;
    binned_long_rows = 0;
    for (const auto& b : bands) binned_long_rows += static_cast<std::int64_t>(b.layout.long_rows.size());
  }
  std::int64_t rows = 0, cols = 0, nnz = 0;
  Variant variant = Variant::csr_scalar;
  HybridSplit hybrid;  // the hybrid variant's split (width 0, all in the tail, for the others)
  int binned_lanes = 0;               // csr-binned: lanes per short row (of the first band)
  std::int64_t binned_long_rows = 0;  // csr-binned: rows cut into chunks (all bands)
  int binned_bands = 0;               // csr-binned: column bands
};

// A block in an engine's memory, in its variant's layout. Only the engine that prepared it
// multiplies it.
class PreparedBlock {
 public:
  virtual ~PreparedBlock() = default;
  const BlockInfo& info() const { return info_; }

 protected:
  BlockInfo info_;
};

struct EngineOptions {
  Variant variant = Variant::csr_scalar;  // resolved (not automatic)
  HybridRule hybrid_rule = HybridRule::third;
  int threads = 0;  // host threads (0: OpenMP's default)
  int binned_lanes = 0;  // csr-binned's lanes per short row (0: binned_lanes' rule in formats.hpp)
  int binned_bands = 0;  // csr-binned's column bands (0: column_bands' rule in formats.hpp)
};

template <class T>
class Engine {
 public:
  virtual ~Engine() = default;
  virtual Variant variant() const = 0;
  virtual Memory memory() const = 0;
  virtual stream_t stream() const = 0;
  virtual std::string describe() const = 0;

  // Builds the variant's layout of `block` (given on the host) in the engine's memory.
  virtual std::unique_ptr<PreparedBlock> prepare(const CsrBlock<T>& block) = 0;
  // y = A x, or y += A x when `accumulate`. x holds info().cols entries, y info().rows.
  virtual void multiply(const PreparedBlock& a, const T* x, T* y, bool accumulate) = 0;

  // out[i] = x[index[i]], i < n (packs the x entries other ranks need).
  virtual void gather(const T* x, const local_index* index, std::int64_t n, T* out) = 0;
  // y[index[i]] += v[i], i < n (index distinct: the ghost block's rows into the full y).
  virtual void scatter_add(const T* v, const local_index* index, std::int64_t n, T* y) = 0;
  // y[rows[r]] += sum over q in [rp[r], rp[r + 1]) of val[q] x[col[q]], r < n, each row's sum
  // from zero in q order (rows distinct): a short-rowed block's product and its scatter in
  // one pass (the distributed product's ghost rows).
  virtual void add_rows(std::int64_t n, const std::int64_t* rp, const local_index* col, const T* val, const T* x,
                        const local_index* rows, T* y) = 0;
  virtual void fill(T* y, T value, std::int64_t n) = 0;
  // sum a[i] b[i] in double (waits).
  virtual double dot(const T* a, const T* b, std::int64_t n) = 0;
  // {sum r[i] d[i] r[i], sum r[i]^2} in double (d null: identity) (waits).
  virtual std::array<double, 2> residual_dots(const T* r, const T* d, std::int64_t n) = 0;
  // The CG step's fused updates (formats.hpp): x += alpha p, r -= alpha q, and the new
  // residual_dots(r, d) in the same pass (waits).
  virtual std::array<double, 2> update_xr(double alpha, const T* p, const T* q, const T* d, T* x, T* r,
                                          std::int64_t n) = 0;
  // p = d r + beta p (d null: r + beta p).
  virtual void update_p(double beta, const T* r, const T* d, T* p, std::int64_t n) = 0;

  virtual void synchronize() = 0;
};

// The engine of `backend` (Backend::cuda: InputError in a build without CUDA);
// Variant::cusparse on the cpu engine throws InputError (it is NVIDIA's GPU library).
template <class T>
std::unique_ptr<Engine<T>> make_engine(Backend backend, const EngineOptions& options);

}  // namespace tessera::spmv
