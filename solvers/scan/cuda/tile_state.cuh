#pragma once
// Tile status for the decoupled look-back (Merrill & Garland, 2016). Each tile publishes first
// its aggregate (the sum of its own elements), then its inclusive prefix (everything up to and
// including it). A status word reads as one of: not ready, aggregate, inclusive prefix.
//
// Two layouts, chosen by the size of the value:
//  - PackedTileState (4-byte values): status and value share one 64-bit word written and read
//    with single relaxed atomics. A reader can never see a status with another value, and
//    nothing else is communicated through the word, so no fences are needed.
//  - SplitTileState (8-byte values): a 32-bit flag plus separate slots for the aggregate and
//    the inclusive prefix. The value is stored first, then the flag with release semantics;
//    the reader loads the flag with acquire semantics, then the slot the flag names. Separate
//    slots matter: a tile moving from aggregate to inclusive never overwrites a value a reader
//    may be about to read under the old flag.
//  - PackedTileState16 (8-byte values, a look-back candidate): status and value in one 16-byte
//    word written and read with single 128-bit relaxed accesses (ld/st .b128, PTX ISA 8.3): one
//    round trip per poll and no fences, like the 4-byte layout. (CUB packs 8-byte values the
//    same way, with .v2.u64 accesses.)
// The status carries the launch's epoch (status = epoch << 2 | kind), so words left by earlier
// launches read as not ready and the state needs no clearing between scans.
#include <cuda/atomic>

#include <cstdint>
#include <cstring>

namespace tessera::scan::gpu {

enum : unsigned { kTileAggregate = 1u, kTileInclusive = 2u };
constexpr unsigned kMaxEpoch = (1u << 30) - 1;

template <class T>
struct TileStatus {
  bool ready;
  bool inclusive;
  T value;
};

template <class T>
struct PackedTileState {
  static_assert(sizeof(T) == 4, "packed tile state holds 4-byte values");
  unsigned long long* words;
  unsigned epoch;

  __device__ __forceinline__ void publish(std::int64_t tile, unsigned kind, T value) const {
    unsigned bits;
    memcpy(&bits, &value, sizeof bits);
    const unsigned long long w = (static_cast<unsigned long long>((epoch << 2) | kind) << 32) | bits;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words[tile]).store(w, cuda::memory_order_relaxed);
  }

  __device__ __forceinline__ TileStatus<T> read(std::int64_t tile) const {
    const unsigned long long w =
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words[tile]).load(cuda::memory_order_relaxed);
    const auto status = static_cast<unsigned>(w >> 32);
    const auto bits = static_cast<unsigned>(w);
    T value;
    memcpy(&value, &bits, sizeof value);
    return {(status >> 2) == epoch, (status & 3u) == kTileInclusive, value};
  }
};

template <class T>
struct SplitTileState {
  static_assert(sizeof(T) == 8, "split tile state holds 8-byte values");
  unsigned* flags;
  T* aggregates;
  T* inclusives;
  unsigned epoch;

  __device__ __forceinline__ void publish(std::int64_t tile, unsigned kind, T value) const {
    T& slot = (kind == kTileInclusive ? inclusives : aggregates)[tile];
    cuda::atomic_ref<T, cuda::thread_scope_device>(slot).store(value, cuda::memory_order_relaxed);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[tile])
        .store((epoch << 2) | kind, cuda::memory_order_release);
  }

  __device__ __forceinline__ TileStatus<T> read(std::int64_t tile) const {
    const unsigned status =
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[tile]).load(cuda::memory_order_acquire);
    const bool ready = (status >> 2) == epoch;
    const bool inclusive = (status & 3u) == kTileInclusive;
    T value = T(0);
    if (ready) {
      T& slot = (inclusive ? inclusives : aggregates)[tile];
      value = cuda::atomic_ref<T, cuda::thread_scope_device>(slot).load(cuda::memory_order_relaxed);
    }
    return {ready, inclusive, value};
  }
};

template <class T>
struct PackedTileState16 {
  static_assert(sizeof(T) == 8, "16-byte packed tile state holds 8-byte values");
  unsigned long long* words;  // two per tile: value bits, then status; 16-byte aligned
  unsigned epoch;

  __device__ __forceinline__ void publish(std::int64_t tile, unsigned kind, T value) const {
    unsigned long long bits;
    memcpy(&bits, &value, sizeof bits);
    const unsigned long long status = (epoch << 2) | kind;
    asm volatile(
        "{\n\t.reg .b128 w;\n\tmov.b128 w, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], w;\n\t}"
        :
        : "l"(words + 2 * tile), "l"(bits), "l"(status)
        : "memory");
  }

  __device__ __forceinline__ TileStatus<T> read(std::int64_t tile) const {
    unsigned long long bits, status;
    asm volatile("{\n\t.reg .b128 w;\n\tld.relaxed.gpu.global.b128 w, [%2];\n\tmov.b128 {%0, %1}, w;\n\t}"
                 : "=l"(bits), "=l"(status)
                 : "l"(words + 2 * tile)
                 : "memory");
    T value;
    memcpy(&value, &bits, sizeof value);
    const auto s = static_cast<unsigned>(status);
    return {(status >> 2) == epoch, (s & 3u) == kTileInclusive, value};
  }
};

// Polls one tile's status until it is ready. With FirstNs > 0 it backs off (FirstNs, doubling up
// to MaxNs) so pollers leave L2 bandwidth to the tiles still loading; with FirstNs = 0 it spins.
template <int FirstNs, int MaxNs, class State>
__device__ __forceinline__ auto wait_ready(const State& state, std::int64_t tile) {
  auto s = state.read(tile);
  unsigned ns = FirstNs;
  while (!s.ready) {
    if constexpr (FirstNs > 0) {
      __nanosleep(ns);
      if (ns < MaxNs) ns <<= 1;
    }
    s = state.read(tile);
  }
  return s;
}

// The default polling.
template <class State>
__device__ __forceinline__ auto wait_ready(const State& state, std::int64_t tile) {
  return wait_ready<32, 512>(state, tile);
}

}  // namespace tessera::scan::gpu
