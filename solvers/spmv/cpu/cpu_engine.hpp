#pragma once
// The cpu engine: every variant's algorithm in OpenMP on host memory, the reference the tests
// and a later cuda engine are compared with.
//   csr-scalar     one row per iteration (a GPU thread per row: the seed's per-row kernel)
//   csr-vector     each row summed in 32 lanes and a butterfly, as a GPU warp per row does
//   coo-segmented  the nonzeros in fixed chunks (a GPU thread per nonzero: the seed's
//                  per-element kernel); row sums by a segmented reduction in each chunk and
//                  the rows cut by chunk borders fixed up afterwards
//   hybrid         the ELL part row by row, then the COO tail as coo-segmented (the seed's)
//   merge-path     rows + nonzeros split into equal shares by merge_path_search, carries
//                  fixed up afterwards (load balanced whatever the row lengths)
//   csr-binned     short rows in sub-warp lanes, long rows in 32-lane chunks added in order,
//                  each sum in the GPU kernel's order (formats.hpp), so the two agree bitwise
// Chunk sizes are fixed, not derived from the thread count, so results repeat bit for bit.
#include <memory>

#include "solvers/spmv/backend.hpp"

namespace tessera::spmv {

inline constexpr std::int64_t kReduceChunk = 4096;  // dot products: elements per partial sum
inline constexpr std::int64_t kCooChunk = 2048;     // coo-segmented: nonzeros per chunk
inline constexpr std::int64_t kMergeChunk = 2048;   // merge-path: rows + nonzeros per chunk

template <class T>
std::unique_ptr<Engine<T>> make_cpu_engine(const EngineOptions& options);

}  // namespace tessera::spmv
