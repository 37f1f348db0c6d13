#pragma once
// The launchers of the scan kernels and their reusable workspaces (one .cu file per family, so
// they compile in parallel). Used by device_local_scan.cu, the tests and the benchmark glue;
// everything here is queued on the given stream and returns at once.
#include <cstdint>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/stream.hpp"
#include "solvers/scan/types.hpp"

namespace tessera::scan::gpu {

// How the tile status is stored (tile_state.cuh): 4-byte values packed with their status in one
// 8-byte word; 8-byte values split into a flag and two value slots, or packed in 16-byte words.
enum class TileStateLayout { packed8 = 1, split = 2, packed16 = 3 };

// Per-tile status of the decoupled look-back plus the tile counter. Status words carry an
// epoch that advances with every launch, so no memset is needed between scans: words of
// earlier launches simply read as "not ready". The counter is never reset either: each launch
// takes a known number of tickets, and the host remembers where this launch's start.
class LookbackWorkspace {
 public:
  // Sizes the state for `tiles` tiles in `layout` and opens a new epoch. A change of layout
  // clears the state (another layout's bytes could read as a status of this epoch).
  void prepare(std::int64_t tiles, TileStateLayout layout, stream_t stream);
  // After the launch: the tickets it took.
  void consumed(std::int64_t tickets) { counter_base_ += static_cast<unsigned long long>(tickets); }

  unsigned epoch() const { return epoch_; }
  unsigned long long counter_base() const { return counter_base_; }
  unsigned long long* counter() { return counter_.data(); }
  // Packed layouts: one 8-byte word per tile (packed8) or two (packed16).
  unsigned long long* words() { return reinterpret_cast<unsigned long long*>(state_.data()); }
  // Split layout (8-byte values): flags, then aggregates, then inclusive prefixes.
  unsigned* flags() { return reinterpret_cast<unsigned*>(state_.data()); }
  char* aggregates() { return state_.data() + split_values_offset(); }
  char* inclusives() { return state_.data() + split_values_offset() + static_cast<std::size_t>(capacity_) * 8; }

 private:
  std::size_t split_values_offset() const { return ((static_cast<std::size_t>(capacity_) * 4 + 255) / 256) * 256; }
  DeviceBuffer<char> state_;
  DeviceBuffer<unsigned long long> counter_;
  std::int64_t capacity_ = 0;  // tiles the state holds (in any layout)
  TileStateLayout layout_ = TileStateLayout::packed8;
  unsigned epoch_ = 0;
  unsigned long long counter_base_ = 0;
};

// Single-pass scan with decoupled look-back: out = offset + scan(in).
template <class In, class Out>
void lookback_scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, LookbackWorkspace& ws,
                   stream_t stream);

// The same with the offset read from device memory when the scan starts (written by work queued
// before it on `stream`: the distributed scan's rank offset, no host round trip).
template <class In, class Out>
void lookback_scan_offset_at(const In* in, Out* out, std::int64_t n, Mode mode, const Out* offset,
                             LookbackWorkspace& ws, stream_t stream);

// *offset = totals[0] + ... + totals[rank - 1] (0 for rank 0), summed in order in Wide (integers
// wrap as uint64) and converted to Out: the distributed scan's exscan of the block totals.
template <class Wide, class Out>
void rank_offset(const Wide* totals, int rank, Out* offset, stream_t stream);

// The same kernel with another (threads, items per thread) shape, for tuning (int32 only).
bool lookback_scan_int32_shape(const std::int32_t* in, std::int32_t* out, std::int64_t n, Mode mode,
                               std::int32_t offset, int threads, int items, LookbackWorkspace& ws, stream_t stream);

// Candidate policies of the look-back scan (lookback_candidates.cu), compared by `tessera bench
// scan` with TESSERA_BENCH_SCAN_LOOKBACK and checked by the gpu tests: their names for element
// type T (int32, int64, float, double), and a scan by name (false if there is no such candidate).
// One workspace may serve several candidates.
template <class T>
std::vector<std::string> lookback_candidates();
template <class T>
bool lookback_candidate_scan(const std::string& name, const T* in, T* out, std::int64_t n, Mode mode, T offset,
                             LookbackWorkspace& ws, stream_t stream);

// The candidate name of the default policy of T (lookback_scan<T, T>).
template <class T>
std::string lookback_default_name();

// Number of elements in which a[0..n) and b[0..n) (device) differ bitwise; waits for `stream`.
template <class T>
std::int64_t count_differences(const T* a, const T* b, std::int64_t n, stream_t stream);

// Partial sums of the reduction kernel (one per block) and its completion counter.
class ReduceWorkspace {
 public:
  void prepare(int blocks, std::size_t value_bytes, stream_t stream);
  char* partials() { return partials_.data(); }
  unsigned* done() { return done_.data(); }
  int max_blocks();  // 4 per multiprocessor of the current device

 private:
  DeviceBuffer<char> partials_;
  DeviceBuffer<unsigned> done_;
  int max_blocks_ = 0;
};

// *total = in[0] + ... + in[n-1] in Acc (a deterministic tree: same result on every call).
template <class In, class Acc>
void reduce_sum(const In* in, std::int64_t n, Acc* total, ReduceWorkspace& ws, stream_t stream);

// The seed's three block scans, made to work for any length: each block scans its elements in
// shared memory and writes its sum; the sums are scanned recursively (in place) and added back.
enum class SeedKind { hillis_steele, blelloch, blelloch_padded };

template <class Out>
class SeedLevels {
 public:
  // The block sums of recursion level `level`, holding at least `count` values.
  Out* sums(std::size_t level, std::int64_t count);

 private:
  std::vector<DeviceBuffer<Out>> levels_;
};

// The whole scan: out = offset + scan(in).
template <class In, class Out>
void seed_scan(SeedKind kind, const In* in, Out* out, std::int64_t n, Mode mode, Out offset, SeedLevels<Out>& levels,
               stream_t stream);
// In two phases: seed_begin runs the block scans and the recursion over the block sums and
// returns where the block's total will be (device memory); seed_finish adds each block's
// prefix plus `offset` (the seed's final-add kernel, which thereby absorbs the rank offset).
template <class In, class Out>
const Out* seed_begin(SeedKind kind, const In* in, Out* out, std::int64_t n, Mode mode, SeedLevels<Out>& levels,
                      stream_t stream);
template <class Out>
void seed_finish(SeedKind kind, Out* out, std::int64_t n, Out offset, SeedLevels<Out>& levels, stream_t stream);

// Device memory for CUB and Thrust temporaries, kept between calls.
class TempStorage {
 public:
  void* get(std::size_t bytes);  // grows when needed
 private:
  DeviceBuffer<char> buffer_;
};

// cub::DeviceScan (InclusiveSum/ExclusiveSum; the ...Scan/ScanInit forms with an offset or a
// wider output type).
template <class In, class Out>
void cub_scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, TempStorage& temp, stream_t stream);
// thrust::inclusive_scan / exclusive_scan, temporaries from `temp`.
template <class In, class Out>
void thrust_scan(const In* in, Out* out, std::int64_t n, Mode mode, Out offset, TempStorage& temp,
                 stream_t stream);

}  // namespace tessera::scan::gpu
