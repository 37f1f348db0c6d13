#pragma once
// The distributed scan: every rank holds one contiguous block of the global sequence (rank
// order = sequence order; any sizes, zero included) and ends with its block of the global scan.
//
//   1. begin: the local phase that needs no offset; it yields the block's total (64-bit);
//   2. comm::exscan of the totals: rank r's offset is the sum of ranks 0..r-1 (rank 0: 0);
//   3. finish: the local phase that applies the offset (fused: see LocalScan::begin).
// One rank runs the whole scan at once. Integer results are bitwise those of a serial scan of
// the whole sequence, for any number of ranks and any partition.
#include <cstdint>

#include "comm/context.hpp"
#include "solvers/scan/local_scan.hpp"

namespace tessera::scan {

// Wall-clock seconds of the three phases on this rank (the exscan includes waiting for the
// slowest rank's begin).
struct PhaseTimes {
  double begin = 0, exscan = 0, finish = 0;
  double total() const { return begin + exscan + finish; }
};

template <class In, class Out>
struct DistributedResult {
  wide_t<Out> offset = 0;  // what the ranks before this one sum to
  PhaseTimes times;
};

// Collective. `in` and `out` hold this rank's n_local elements in local.memory(); returns once
// `out` is complete (the device synchronised).
template <class In, class Out>
DistributedResult<In, Out> distributed_scan(comm::Context& ctx, LocalScan<In, Out>& local, const In* in, Out* out,
                                            std::int64_t n_local, Mode mode);

}  // namespace tessera::scan
