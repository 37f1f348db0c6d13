#include "app/bench_comm.hpp"

#include <algorithm>
#include <vector>

#include "comm/cart.hpp"
#include "comm/collectives.hpp"
#include "comm/halo.hpp"
#include "comm/ring_shift.hpp"
#include "core/buffer.hpp"
#include "core/device_info.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "solvers/bench_timing.hpp"

namespace tessera::app {
namespace {

void bench_ring(comm::Context& ctx, comm::Transport& tr, const BenchOptions& o, BenchReport& report) {
  const std::vector<std::size_t> sizes =
      o.quick ? std::vector<std::size_t>{1 << 10, 1 << 20} : std::vector<std::size_t>{1 << 10, 1 << 16, 1 << 20, 1 << 24, 1 << 26};
  comm::RingShift ring(ctx, tr, sizes.back());
  for (std::size_t bytes : sizes) {
    const double s = time_collective(ctx, o.repeat, [&] {
      ring.start(bytes, bytes);
      ring.finish();
      if (ring.stream()) synchronize(ring.stream());
    });
    report.rows.push_back({fmt::format("ring_shift/{}", comm::to_string(tr.kind())), fmt::format("{} KiB", bytes >> 10),
                           s, bytes / s / 1e9, "GB/s per rank", 0.0, ""});
  }
}

void bench_halo(comm::Context& ctx, comm::Transport& tr, const BenchOptions& o, BenchReport& report) {
  const std::int64_t n = o.quick ? 32 : 256;  // cells per axis per rank
  const std::array<int, 3> dims{0, 0, 0};
  comm::CartDecomposition decomp(ctx, {n * 1, n * 1, n * ctx.size()}, dims, {true, true, true});
  comm::HaloLayout layout;
  layout.n = decomp.local_size();
  layout.ghost = 1;
  layout.elem_size = sizeof(float);
  const auto elements = static_cast<std::size_t>(layout.elements());
  const int fields = 3;
  std::vector<void*> ptrs;
  std::vector<DeviceBuffer<float>> dev;
  std::vector<PinnedBuffer<float>> host;
  for (int f = 0; f < fields; ++f) {
    if (tr.memory() == Memory::device) {
      dev.emplace_back(elements);
      fill_device_bytes(dev.back().data(), 0x3F, dev.back().bytes());
      ptrs.push_back(dev.back().data());
    } else {
      host.emplace_back(elements);
      std::fill_n(host.back().data(), elements, 1.0f);
      ptrs.push_back(host.back().data());
    }
  }
  Stream stream = tr.memory() == Memory::device ? Stream() : Stream::none();
  comm::HaloExchange halo(decomp, tr, layout, fields);
  const double s = time_collective(ctx, o.repeat, [&] {
    halo.exchange(ptrs, stream.get());
    stream.synchronize();
  });
  // Bytes this rank sends: both faces of each axis that has a neighbour.
  double bytes = 0;
  const auto& ln = layout.n;
  const double face[3] = {double(ln[1] * ln[2]), double(ln[0] * ln[2]), double(ln[0] * ln[1])};
  for (int a = 0; a < 3; ++a) bytes += 2 * face[a] * sizeof(float) * fields;
  report.rows.push_back({fmt::format("halo/{}", comm::to_string(tr.kind())),
                         fmt::format("{}x{}x{}x{}f", ln[0], ln[1], ln[2], fields), s, bytes / s / 1e9,
                         "GB/s per rank", 0.0,
                         fmt::format("dims {}x{}x{}", decomp.dims()[0], decomp.dims()[1], decomp.dims()[2])});
}

}  // namespace

BenchReport bench_comm(comm::Context& ctx, const BenchOptions& o) {
  const Backend backend = resolve_backend(parse_backend(o.backend, "--backend"));
  BenchReport report;
  report.title = fmt::format("tessera bench comm: {} ranks, backend {}", ctx.size(), to_string(backend));
  auto dev = current_device_info();
  report.device = dev && backend == Backend::cuda ? fmt::format("{} x{}", dev->name, ctx.size()) : "CPU";
  std::vector<std::string> kinds;
  if (backend == Backend::cpu)
    kinds = {"auto"};
  else if (o.transport == "auto")
    kinds = {"staged", "mpi", "nccl"};
  else
    kinds = {o.transport};
  for (const auto& kind : kinds) {
    std::unique_ptr<comm::Transport> tr;
    try {
      tr = comm::make_transport(ctx, backend, kind).transport;
    } catch (const InputError& e) {
      log::info("skipping transport {}: {}", kind, e.what());
      continue;
    }
    bench_ring(ctx, *tr, o, report);
    bench_halo(ctx, *tr, o, report);
  }
  return report;
}

}  // namespace tessera::app
