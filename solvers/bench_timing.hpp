#pragma once
// Timing helpers every solver's benchmark shares (header-only: the solver libraries do not
// link one another, and the bench of each includes this).
#include <algorithm>
#include <functional>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/context.hpp"
#include "core/timer.hpp"

namespace tessera {

// The median of `v` (0 for none).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Median of `repeat` timed runs of f after one warm-up; each run is the job's time (the
// slowest rank), between barriers. Collective.
inline double time_collective(comm::Context& ctx, int repeat, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    comm::barrier(ctx);
    HostTimer timer;
    f();
    t.push_back(comm::allreduce(ctx, timer.seconds(), comm::Op::max));
  }
  return median(t);
}

}  // namespace tessera
