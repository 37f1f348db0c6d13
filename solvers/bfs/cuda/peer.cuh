#pragma once
// Device-initiated exchanges through peer memory: where the shares put things, the levels'
// clock readings, and the claims of shared pairs (which the GPU-run level loop reuses). The
// kernels are in peer.cu.
#include <cstddef>
#include <cstdint>

#include "solvers/bfs/cuda/top_down.cuh"

namespace tessera::bfs::gpu {

// Where the shares put things in every rank's window (the same layout on every rank).
struct SharedLayout {
  std::size_t table[2];   // two tables of `ranks` rows and a status word; shares alternate
  std::size_t frontier;   // the frontier bitmap (global words)
  std::size_t hubs;       // the hub bitmap (delegates.hpp; global words)
  std::size_t receive;    // pairs: slot k (the k-th other rank) at k * slot_pairs
  std::int64_t slot_pairs;
};

// A device-driven level's readings of the GPU's global clock (ns), for the profile: taken by the
// kernels that pass the points, so the search runs as it does unprofiled. A share is read when
// its first block starts (the steps before it have finished), once it has signalled (its
// stores have landed) and after the wait for the other ranks.
constexpr int kStampedLevels = 64;  // deeper levels are not stamped
struct LevelStamp {
  ull start, share_in[2], share_signalled[2], share_out[2], conclude_in, end;
  long long vertices, edges;
  int bottom_up;
};

// Where a share kernel stamps its readings: levels[*level].share_*[which] (stamps null: nowhere).
struct ShareStamps {
  LevelStamp* stamps = nullptr;
  const long long* level = nullptr;  // LevelControl::level
  int which = 0;                     // the level's first share (0) or its last (1)

  __device__ __forceinline__ LevelStamp* at() const {
    return stamps && *level < kStampedLevels ? stamps + *level : nullptr;
  }
};

// Which of this rank's hubs the level reached (share_kernel writes them as its words of the hub
// bitmap): visited in this search and at level `*level_now + 1` (the level arrays keep the
// last search's entries until the end of this one, so the level alone would not do).
struct HubShare {
  std::size_t offset = 0;            // the hub bitmap in the window
  std::int64_t word_begin = 0;       // this rank's first word
  std::int64_t count = 0;            // this rank's hubs (0: no hub words to share)
  const std::uint32_t* ids = nullptr;  // their global ids
  std::int64_t begin = 0;            // this rank's first vertex
  const std::uint32_t* visited = nullptr;
  const std::int32_t* level = nullptr;  // global-sized
  const long long* level_now = nullptr;  // LevelControl::level: the level being shared
  std::uint32_t* settled = nullptr;    // View::hub_settled
};

// The pairs the other ranks' top_down wrote here: slot k (the k-th other rank, in rank order)
// holds that rank's count for this one in its row of the shared table.
__device__ __forceinline__ void claim_shared(const View& d, const uint2* pairs, std::int64_t slot_pairs,
                                             const ull* table, int row_words, std::uint32_t* next_queue,
                                             int next_level) {
  const auto count_from = [&](int k) {
    const int r = k < d.me ? k : k + 1;
    return static_cast<std::int64_t>(table[static_cast<std::int64_t>(r) * row_words + kRowPairs + d.me]);
  };
  std::int64_t total = 0;
  for (int k = 0; k + 1 < d.parts; ++k) total += count_from(k);
  claim_pairs(
      d, total,
      [&](std::int64_t i, uint2& p) {
        int k = 0;
        for (std::int64_t c = count_from(0); i >= c; c = count_from(++k)) i -= c;
        p = pairs[k * slot_pairs + i];
        return true;
      },
      next_queue, next_level);
}

}  // namespace tessera::bfs::gpu
