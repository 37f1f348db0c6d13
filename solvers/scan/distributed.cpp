#include "solvers/scan/distributed.hpp"

#include <type_traits>

#include "comm/collectives.hpp"
#include "core/timer.hpp"

namespace tessera::scan {
namespace {

// Integer totals are exchanged as uint64, whose sums wrap by definition (an int64 scan may wrap
// too); the result is the same bits as the serial scan's.
template <class Wide>
Wide exscan_wide(comm::Context& ctx, Wide total) {
  if constexpr (std::is_integral_v<Wide>)
    return static_cast<Wide>(comm::exscan(ctx, static_cast<std::uint64_t>(total)));
  else
    return comm::exscan(ctx, total);
}

}  // namespace

template <class In, class Out>
DistributedResult<In, Out> distributed_scan(comm::Context& ctx, LocalScan<In, Out>& local, const In* in, Out* out,
                                            std::int64_t n_local, Mode mode) {
  DistributedResult<In, Out> result;
  HostTimer timer;
  if (ctx.size() == 1) {
    local.scan(in, out, n_local, mode, Out(0));
    local.synchronize();
    result.times.finish = timer.seconds();
    return result;
  }
  // The last rank's total is nobody's offset: it may skip the reduction some variants need.
  const bool need_total = ctx.rank() < ctx.size() - 1;
  const wide_t<Out> total = local.begin(in, out, n_local, mode, need_total);
  result.times.begin = timer.seconds();
  timer.reset();
  result.offset = exscan_wide(ctx, need_total ? total : wide_t<Out>{0});
  result.times.exscan = timer.seconds();
  timer.reset();
  local.finish(result.offset);
  local.synchronize();
  result.times.finish = timer.seconds();
  return result;
}

#define TESSERA_SCAN_INSTANTIATE(In, Out)                                                                     \
  template DistributedResult<In, Out> distributed_scan<In, Out>(comm::Context&, LocalScan<In, Out>&, const In*, \
                                                                Out*, std::int64_t, Mode);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan
