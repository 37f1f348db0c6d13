// The seed's three GPU scans (issue 5, seed 001), kept as algorithms and fixed for any length:
//  - hillis-steele: one element per thread, log2(B) double-buffered steps in shared memory
//    (the seed iterated up to the global length; a block only needs log2 of its own size);
//  - blelloch: two elements per thread, the work-efficient up-sweep / down-sweep tree;
//  - blelloch-padded: the same with one padding word per 32, against bank conflicts.
// Any length by recursion, as in the seed: each block writes its sum, the sums are scanned by
// the same algorithm (in place, level by level), and a final pass adds each block's prefix.
// Fixed here: elements past the end are zeros instead of garbage, every block (the last,
// partial one too) writes its sum, the level buffers are kept between calls instead of a
// cudaMalloc per level per call, indices are 64-bit, and exclusive scans are exact (no
// subtraction). The final add also adds the caller's offset, which is where the distributed
// scan's rank offset goes for free.
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#include "solvers/scan/cuda/device_common.cuh"
#include "solvers/scan/cuda/kernels.hpp"

namespace tessera::scan::gpu {
namespace {

constexpr int kSeedThreads = 512;  // the seed's best block size on its P40

constexpr int elements_per_block(SeedKind kind) {
  return kind == SeedKind::hillis_steele ? kSeedThreads : 2 * kSeedThreads;
}

template <class In, class Out, bool Exclusive>
__global__ void __launch_bounds__(kSeedThreads)
    hillis_steele_block(const In* in, Out* out, std::int64_t n, Out* block_sums) {
  __shared__ Out buf[2][kSeedThreads];
  const int t = threadIdx.x;
  const std::int64_t i = std::int64_t{blockIdx.x} * kSeedThreads + t;
  buf[0][t] = i < n ? static_cast<Out>(in[i]) : Out(0);
  __syncthreads();
  int r = 0;
  for (int offset = 1; offset < kSeedThreads; offset <<= 1) {
    buf[r ^ 1][t] = t >= offset ? scan_add(buf[r][t - offset], buf[r][t]) : buf[r][t];
    __syncthreads();
    r ^= 1;
  }
  if (i < n) out[i] = Exclusive ? (t > 0 ? buf[r][t - 1] : Out(0)) : buf[r][t];
  if (t == kSeedThreads - 1) block_sums[blockIdx.x] = buf[r][t];
}

template <bool Pad>
__device__ __forceinline__ int padded(int a) {
  return Pad ? a + a / 32 : a;  // the seed's CONFLICT_FREE_OFFSET
}

template <class In, class Out, bool Exclusive, bool Pad>
__global__ void __launch_bounds__(kSeedThreads)
    blelloch_block(const In* in, Out* out, std::int64_t n, Out* block_sums) {
  constexpr int E = 2 * kSeedThreads;
  __shared__ Out sh[E + (Pad ? E / 32 : 0)];
  const int t = threadIdx.x;
  const std::int64_t base = std::int64_t{blockIdx.x} * E;
  const int a0 = 2 * t, a1 = 2 * t + 1;
  const Out x0 = base + a0 < n ? static_cast<Out>(in[base + a0]) : Out(0);
  const Out x1 = base + a1 < n ? static_cast<Out>(in[base + a1]) : Out(0);
  sh[padded<Pad>(a0)] = x0;
  sh[padded<Pad>(a1)] = x1;
  __syncthreads();

  int stride = 1;  // up-sweep: build partial sums in place
  for (int active = kSeedThreads; active >= 1; active >>= 1, stride <<= 1) {
    if (t < active) {
      const int b = stride * 2 * (t + 1) - 1, a = b - stride;
      sh[padded<Pad>(b)] = scan_add(sh[padded<Pad>(a)], sh[padded<Pad>(b)]);
    }
    __syncthreads();
  }
  const Out total = sh[padded<Pad>(E - 1)];
  __syncthreads();
  if (t == 0) sh[padded<Pad>(E - 1)] = Out(0);
  __syncthreads();
  for (int active = 1; active <= kSeedThreads; active <<= 1) {  // down-sweep: distribute prefixes
    stride >>= 1;
    if (t < active) {
      const int b = stride * 2 * (t + 1) - 1, a = b - stride;
      const Out left = sh[padded<Pad>(a)];
      sh[padded<Pad>(a)] = sh[padded<Pad>(b)];
      sh[padded<Pad>(b)] = scan_add(sh[padded<Pad>(b)], left);
    }
    __syncthreads();
  }
  const Out e0 = sh[padded<Pad>(a0)], e1 = sh[padded<Pad>(a1)];
  if (base + a0 < n) out[base + a0] = Exclusive ? e0 : scan_add(e0, x0);
  if (base + a1 < n) out[base + a1] = Exclusive ? e1 : scan_add(e1, x1);
  if (t == 0) block_sums[blockIdx.x] = total;
}

// The seed's finalAdd: element i gets the inclusive prefix of the blocks before its own.
template <class Out, int PerBlock>
__global__ void __launch_bounds__(kSeedThreads)
    add_block_prefix(Out* out, std::int64_t n, const Out* scanned_sums, Out offset) {
  const std::int64_t i = std::int64_t{blockIdx.x} * kSeedThreads + threadIdx.x;
  if (i >= n) return;
  const std::int64_t b = i / PerBlock;
  const Out prefix = b > 0 ? scan_add(offset, scanned_sums[b - 1]) : offset;
  out[i] = scan_add(prefix, out[i]);
}

template <class In, class Out>
void block_scans(SeedKind kind, const In* in, Out* out, std::int64_t n, Mode mode, Out* sums, stream_t stream) {
  const auto grid = static_cast<unsigned>(ceil_div(n, elements_per_block(kind)));
  const bool ex = mode == Mode::exclusive;
  switch (kind) {
    case SeedKind::hillis_steele:
      if (ex) hillis_steele_block<In, Out, true><<<grid, kSeedThreads, 0, stream>>>(in, out, n, sums);
      else hillis_steele_block<In, Out, false><<<grid, kSeedThreads, 0, stream>>>(in, out, n, sums);
      break;
    case SeedKind::blelloch:
      if (ex) blelloch_block<In, Out, true, false><<<grid, kSeedThreads, 0, stream>>>(in, out, n, sums);
      else blelloch_block<In, Out, false, false><<<grid, kSeedThreads, 0, stream>>>(in, out, n, sums);
      break;
    case SeedKind::blelloch_padded:
      if (ex) blelloch_block<In, Out, true, true><<<grid, kSeedThreads, 0, stream>>>(in, out, n, sums);
      else blelloch_block<In, Out, false, true><<<grid, kSeedThreads, 0, stream>>>(in, out, n, sums);
      break;
  }
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class Out>
void add_prefixes(SeedKind kind, Out* out, std::int64_t n, const Out* sums, Out offset, stream_t stream) {
  const auto grid = static_cast<unsigned>(ceil_div(n, kSeedThreads));
  if (elements_per_block(kind) == kSeedThreads)
    add_block_prefix<Out, kSeedThreads><<<grid, kSeedThreads, 0, stream>>>(out, n, sums, offset);
  else
    add_block_prefix<Out, 2 * kSeedThreads><<<grid, kSeedThreads, 0, stream>>>(out, n, sums, offset);
  TESSERA_CUDA_CHECK_LAUNCH();
}

// Scans `in` completely (block scans, recursion over the sums at `level` + 1, final add).
template <class In, class Out>
void full_scan(SeedKind kind, const In* in, Out* out, std::int64_t n, Mode mode, Out offset, SeedLevels<Out>& levels,
               std::size_t level, stream_t stream) {
  if (n <= 0) return;
  const std::int64_t blocks = ceil_div(n, elements_per_block(kind));
  Out* sums = levels.sums(level, blocks);
  block_scans(kind, in, out, n, mode, sums, stream);
  if (blocks > 1) full_scan<Out, Out>(kind, sums, sums, blocks, Mode::inclusive, Out(0), levels, level + 1, stream);
  if (blocks > 1 || offset != Out(0)) add_prefixes(kind, out, n, sums, offset, stream);
}

}  // namespace

template <class Out>
Out* SeedLevels<Out>::sums(std::size_t level, std::int64_t count) {
  if (levels_.size() <= level) levels_.resize(level + 1);
  if (levels_[level].size() < static_cast<std::size_t>(count))
    levels_[level] = DeviceBuffer<Out>(static_cast<std::size_t>(count));
  return levels_[level].data();
}

template <class In, class Out>
void seed_scan(SeedKind kind, const In* in, Out* out, std::int64_t n, Mode mode, Out offset, SeedLevels<Out>& levels,
               stream_t stream) {
  full_scan(kind, in, out, n, mode, offset, levels, 0, stream);
}

template <class In, class Out>
const Out* seed_begin(SeedKind kind, const In* in, Out* out, std::int64_t n, Mode mode, SeedLevels<Out>& levels,
                      stream_t stream) {
  if (n <= 0) return nullptr;
  const std::int64_t blocks = ceil_div(n, elements_per_block(kind));
  Out* sums = levels.sums(0, blocks);
  block_scans(kind, in, out, n, mode, sums, stream);
  if (blocks > 1) full_scan<Out, Out>(kind, sums, sums, blocks, Mode::inclusive, Out(0), levels, 1, stream);
  return sums + (blocks - 1);  // the inclusive prefix of the last block: the total
}

template <class Out>
void seed_finish(SeedKind kind, Out* out, std::int64_t n, Out offset, SeedLevels<Out>& levels, stream_t stream) {
  if (n <= 0) return;
  const std::int64_t blocks = ceil_div(n, elements_per_block(kind));
  if (blocks > 1 || offset != Out(0)) add_prefixes(kind, out, n, levels.sums(0, blocks), offset, stream);
}

template class SeedLevels<std::int32_t>;
template class SeedLevels<std::int64_t>;
template class SeedLevels<float>;
template class SeedLevels<double>;

#define TESSERA_SCAN_INSTANTIATE(In, Out)                                                                       \
  template void seed_scan<In, Out>(SeedKind, const In*, Out*, std::int64_t, Mode, Out, SeedLevels<Out>&,        \
                                   stream_t);                                                                   \
  template const Out* seed_begin<In, Out>(SeedKind, const In*, Out*, std::int64_t, Mode, SeedLevels<Out>&, \
                                          stream_t);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE
template void seed_finish<std::int32_t>(SeedKind, std::int32_t*, std::int64_t, std::int32_t, SeedLevels<std::int32_t>&,
                                        stream_t);
template void seed_finish<std::int64_t>(SeedKind, std::int64_t*, std::int64_t, std::int64_t, SeedLevels<std::int64_t>&,
                                        stream_t);
template void seed_finish<float>(SeedKind, float*, std::int64_t, float, SeedLevels<float>&, stream_t);
template void seed_finish<double>(SeedKind, double*, std::int64_t, double, SeedLevels<double>&, stream_t);

}  // namespace tessera::scan::gpu
