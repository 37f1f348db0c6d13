#pragma once
// The bottom-up step's device code, and the conversions between the frontier queue and bitmap,
// which the GPU-run level loop (device_loop.cu) reuses; the kernels are in bottom_up.cu.
//
// Bottom-up gives each unvisited vertex one thread that checks its first kThreadScan
// neighbours against the frontier bitmap (2 MiB at scale 24: it lives in L2) and stops at the
// first hit; each warp covers one 32-bit word of vertices, so a ballot writes the visited and
// next words without atomics. The few vertices with longer rows still unresolved go to a
// list that a second kernel scans a warp per vertex, 32 neighbours per step.
#include <cub/cub.cuh>

#include <type_traits>

#include "solvers/bfs/cuda/common.cuh"

namespace tessera::bfs::gpu {

__device__ __forceinline__ void set_queued_bits(const std::uint32_t* queue, std::int64_t nq, std::uint32_t* words) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < nq;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    atomicOr(words + (queue[i] >> 5), 1u << (queue[i] & 31));
}

__device__ __forceinline__ void bottom_up_words(const View& d, int next_level) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kBlock / 32);
  const std::int64_t words = (d.nl + 31) / 32;
  ull found = 0, edges = 0;
  for (std::int64_t wi = (blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x) >> 5; wi < words;
       wi += warps) {
    const std::uint32_t seen = d.visited[wi];
    std::uint32_t hits = 0;
    if (seen != kFull) {  // uniform over the warp
      const std::int64_t v = wi * 32 + lane;
      bool hit = false;
      if (v < d.nl && !((seen >> lane) & 1u)) {
        const std::int64_t s = d.offsets[v], e = d.offsets[v + 1];
        const std::int64_t stop = min(e, s + kThreadScan);
        for (std::int64_t j = s; j < stop; ++j) {
          const std::uint32_t w = d.columns[j];
          if (test_bit(d.frontier, w)) {
            d.parent[d.begin + v] = w;
            d.level[d.begin + v] = next_level;
            hit = true;
            ++found;
            edges += static_cast<ull>(e - s);
            break;
          }
        }
        if (!hit && stop < e) enqueue(d.long_list, &d.counters->long_size, static_cast<std::uint32_t>(v));
      }
      hits = __ballot_sync(kFull, hit);
    }
    if (lane == 0) {
      if (hits) d.visited[wi] = seen | hits;
      d.next[wi] = hits;
    }
  }
  add_counts(&d.row[kRowFound], found, &d.row[kRowEdges], edges);
}

// The rows the thread pass left unresolved, a warp per vertex.
__device__ __forceinline__ void bottom_up_long_rows(const View& d, int next_level) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kBlock / 32);
  const auto count = static_cast<std::int64_t>(d.counters->long_size);
  ull found = 0, edges = 0;
  for (std::int64_t i = (blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x) >> 5; i < count; i += warps) {
    const std::uint32_t v = d.long_list[i];
    const std::int64_t s = d.offsets[v], e = d.offsets[v + 1];
    for (std::int64_t base = s + kThreadScan; base < e; base += 32) {
      const std::int64_t j = base + lane;
      const std::uint32_t w = j < e ? d.columns[j] : 0;
      const std::uint32_t m = __ballot_sync(kFull, j < e && test_bit(d.frontier, w));
      if (m) {
        const std::uint32_t parent = __shfl_sync(kFull, w, __ffs(m) - 1);
        if (lane == 0) {
          d.parent[d.begin + v] = parent;
          d.level[d.begin + v] = next_level;
          atomicOr(d.visited + (v >> 5), 1u << (v & 31));
          atomicOr(d.next + (v >> 5), 1u << (v & 31));
          ++found;
          edges += static_cast<ull>(e - s);
        }
        break;
      }
    }
  }
  add_counts(&d.row[kRowFound], found, &d.row[kRowEdges], edges);
}

// This rank's frontier words as a queue of local ids, a word per thread and kBitmapWords words
// per thread and round: a block scan of the words' bit counts places each word's vertices,
// and one atomic per block and round takes the block's range of the queue (reading the words
// is the whole cost: 4 MiB at scale 26 on one rank, against a compaction over every vertex id).
// The queue holds the vertices of a word in order, the words of a block in order, blocks in
// the order they finish. With a `keep` other than KeepEvery, only the vertices it accepts.
constexpr int kBitmapWords = 4;

struct KeepEvery {
  __device__ bool operator()(std::int64_t) const { return true; }
};

template <class Keep = KeepEvery>
__device__ __forceinline__ void bitmap_to_queue_rounds(const std::uint32_t* words, std::int64_t nwords,
                                                       std::int64_t nl, std::uint32_t* queue, ull* size,
                                                       Keep keep = {}) {
  using Scan = cub::BlockScan<unsigned, kBlock>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ ull block_base;
  constexpr std::int64_t kRound = static_cast<std::int64_t>(kBlock) * kBitmapWords;
  for (std::int64_t first = blockIdx.x * kRound; first < nwords; first += gridDim.x * kRound) {  // uniform
    std::uint32_t w[kBitmapWords];
    unsigned count = 0;
#pragma unroll
    for (int k = 0; k < kBitmapWords; ++k) {
      const std::int64_t i = first + static_cast<std::int64_t>(threadIdx.x) * kBitmapWords + k;
      w[k] = i < nwords ? words[i] : 0u;
      if constexpr (!std::is_same_v<Keep, KeepEvery>) {
        for (std::uint32_t bits = w[k]; bits; bits &= bits - 1) {
          const std::int64_t v = i * 32 + __ffs(bits) - 1;
          if (v < nl && !keep(v)) w[k] &= ~(bits & (0u - bits));  // its lowest bit
        }
      }
      count += __popc(w[k]);
    }
    unsigned offset = 0, total = 0;
    Scan(temp).ExclusiveSum(count, offset, total);
    if (threadIdx.x == 0) block_base = total ? atomicAdd(size, static_cast<ull>(total)) : 0;
    __syncthreads();
    ull at = block_base + offset;
#pragma unroll
    for (int k = 0; k < kBitmapWords; ++k) {
      const std::int64_t v0 = (first + static_cast<std::int64_t>(threadIdx.x) * kBitmapWords + k) * 32;
      for (std::uint32_t bits = w[k]; bits; bits &= bits - 1) {
        const std::int64_t v = v0 + __ffs(bits) - 1;
        if (v < nl) queue[at++] = static_cast<std::uint32_t>(v);
      }
    }
    __syncthreads();  // temp and block_base are reused by the next round
  }
}

}  // namespace tessera::bfs::gpu
