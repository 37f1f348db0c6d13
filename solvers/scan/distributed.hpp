#pragma once
// The distributed scan: every rank holds one contiguous block of the global sequence (rank
// order = sequence order; any sizes, zero included) and ends with its block of the global scan.
//
//   1. begin: the local phase that needs no offset; it yields the block's total (64-bit);
//   2. the exscan of the totals: rank r's offset is the sum of ranks 0..r-1 (rank 0: 0);
//   3. finish: the local phase that applies the offset (fused: see LocalScan::begin).
// With a device transport and a variant that reads its offset from device memory (lookback),
// all three stay on the GPU's stream: the totals are allgathered on the transport and summed
// by a kernel, and the host waits once, at the end (no device sync and host MPI in between).
// Otherwise step 2 is comm::exscan on the host. One rank runs the whole scan at once. Integer
// results are bitwise those of a serial scan of the whole sequence, for any number of ranks and
// any partition, on either path.
#include <cstdint>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "solvers/scan/backend.hpp"

namespace tessera::scan {

// Wall-clock seconds of the three phases on this rank (the exscan includes waiting for the
// slowest rank's begin). On the device path they are not told apart: all of it is `finish`.
struct PhaseTimes {
  double begin = 0, exscan = 0, finish = 0;
  double total() const { return begin + exscan + finish; }
};

template <class In, class Out>
struct DistributedResult {
  wide_t<Out> offset = 0;  // what the ranks before this one sum to (host path only)
  PhaseTimes times;
  bool on_device = false;  // the totals were exchanged and summed on the device
};

// Collective. `in` and `out` hold this rank's n_local elements in local.memory(); returns once
// `out` is complete (the device synchronised). `transport`: the run's (may be null); the
// device path needs one in device memory, and every rank decides the same way.
template <class In, class Out>
DistributedResult<In, Out> distributed_scan(comm::Context& ctx, LocalScan<In, Out>& local, const In* in, Out* out,
                                            std::int64_t n_local, Mode mode, comm::Transport* transport = nullptr);

}  // namespace tessera::scan
