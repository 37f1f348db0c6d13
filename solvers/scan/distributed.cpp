#include "solvers/scan/distributed.hpp"

#include <type_traits>

#include "comm/allgather.hpp"
#include "comm/collectives.hpp"
#include "core/profile.hpp"
#include "core/timer.hpp"

namespace tessera::scan {
namespace {

constexpr int kTagTotals = 701;

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
                                            std::int64_t n_local, Mode mode, comm::Transport* transport) {
  DistributedResult<In, Out> result;
  HostTimer timer;
  if (ctx.size() == 1) {
    TESSERA_PROFILE("scan.local");
    local.scan(in, out, n_local, mode, Out(0));
    local.synchronize();
    result.times.finish = timer.seconds();
    return result;
  }
  // The last rank's total is nobody's offset: it may skip the reduction some variants need.
  const bool need_total = ctx.rank() < ctx.size() - 1;
  // The same on every rank: the transport is common, and so is the variant.
  if (transport && transport->memory() == Memory::device && local.queued_offsets()) {
    wide_t<Out>* totals = local.device_totals(ctx.size());
    {
      TESSERA_PROFILE_SYNC("scan.local", local.stream());
      local.queued_begin(in, out, n_local, mode, ctx.rank(), need_total);
    }
    {
      // Slot q of `totals` (device memory) from rank q, for every q, on the transport.
      TESSERA_PROFILE_SYNC("scan.allgather", local.stream());
      comm::allgather_equal_blocks(ctx, *transport, local.stream(), reinterpret_cast<std::byte*>(totals),
                                   sizeof(*totals), kTagTotals);
    }
    TESSERA_PROFILE("scan.finish");
    local.queued_finish();
    local.synchronize();
    result.times.finish = timer.seconds();
    result.on_device = true;
    return result;
  }
  profile::Region local_region("scan.local");
  const wide_t<Out> total = local.begin(in, out, n_local, mode, need_total);
  local_region.end();
  result.times.begin = timer.seconds();
  timer.reset();
  profile::Region exscan_region("scan.exscan");
  result.offset = exscan_wide(ctx, need_total ? total : wide_t<Out>{0});
  exscan_region.end();
  result.times.exscan = timer.seconds();
  timer.reset();
  TESSERA_PROFILE("scan.finish");
  local.finish(result.offset);
  local.synchronize();
  result.times.finish = timer.seconds();
  return result;
}

#define TESSERA_SCAN_INSTANTIATE(In, Out)                                                                     \
  template DistributedResult<In, Out> distributed_scan<In, Out>(comm::Context&, LocalScan<In, Out>&, const In*, \
                                                                Out*, std::int64_t, Mode, comm::Transport*);
TESSERA_SCAN_FOR_EACH_PAIR(TESSERA_SCAN_INSTANTIATE)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan
