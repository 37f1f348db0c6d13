#include "solvers/scan/bench.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "comm/collectives.hpp"
#include "core/buffer.hpp"
#include "core/device_info.hpp"
#include "core/env.hpp"
#include "core/log.hpp"
#include "core/partition.hpp"
#include "core/timer.hpp"
#include "solvers/bench_timing.hpp"
#include "solvers/scan/distributed.hpp"
#include "solvers/scan/generate.hpp"
#include "solvers/scan/backend.hpp"
#if defined(TESSERA_HAVE_CUDA)
#include "solvers/scan/cuda/device_scan.hpp"
#endif

namespace tessera::scan {
namespace {

constexpr std::int64_t kSeedLength = 123123123;  // the seed's measured run

std::string size_text(std::int64_t n) {
  for (int k = 0; k < 63; ++k)
    if (n == (std::int64_t{1} << k)) return fmt::format("2^{}", k);
  return std::to_string(n);
}

Generator bench_generator(bool floating) {
  Generator g;
  g.seed = 2024;
  g.low = floating ? -1.0 : -100.0;
  g.high = floating ? 1.0 : 100.0;
  return g;
}

// ---- host (cpu backend) ---------------------------------------------------------------------

void bench_host(comm::Context& ctx, const BenchOptions& o, BenchReport& report) {
  const std::vector<std::int64_t> sizes =
      o.quick ? std::vector<std::int64_t>{1 << 16, 1 << 20} : std::vector<std::int64_t>{1 << 20, 1 << 24, 1 << 26};
  const std::int64_t max_n = sizes.back();
  std::vector<std::int32_t> in(static_cast<std::size_t>(max_n));
  std::vector<std::int32_t> out(in.size());
  generate_values(in.data(), max_n, 0, bench_generator(false));
  for (std::int64_t n : sizes) {
    const std::size_t bytes = static_cast<std::size_t>(n) * 4;
    const double copy = time_collective(ctx, o.repeat, [&] { std::memcpy(out.data(), in.data(), bytes); });
    const double bound = 2.0 * bytes / copy / 8 / 1e9;  // G elements/s at one read + one write
    report.rows.push_back({"memcpy (host)", size_text(n), copy, 2.0 * bytes / copy / 1e9, "GB/s", 0, "read + write"});
    for (Variant v : {Variant::cpu_serial, Variant::cpu}) {
      auto scan = make_local_scan<std::int32_t, std::int32_t>(v);
      const double t = time_collective(ctx, o.repeat, [&] { scan->scan(in.data(), out.data(), n, Mode::inclusive, 0); });
      report.rows.push_back({std::string(to_string(v)), size_text(n), t, n / t / 1e9, "G elements/s",
                             n / t / 1e9 / bound, ""});
    }
  }
  // The distributed scan of host blocks: every rank scans its own block of the same size.
  const std::int64_t n_local = sizes.back();
  auto local = make_local_scan<std::int32_t, std::int32_t>(Variant::cpu);
  const double single = time_collective(ctx, o.repeat, [&] { local->scan(in.data(), out.data(), n_local, Mode::inclusive, 0); });
  const double dist = time_collective(ctx, o.repeat, [&] {
    distributed_scan(ctx, *local, in.data(), out.data(), n_local, Mode::inclusive);
  });
  const double p = ctx.size();
  report.rows.push_back({fmt::format("distributed cpu P={}", ctx.size()), size_text(n_local) + "/rank", dist,
                         p * n_local / dist / 1e9, "G elements/s", 0,
                         fmt::format("{:.1f}% of P x one rank alone", 100.0 * single / dist)});
}

#if defined(TESSERA_HAVE_CUDA)
// ---- device (cuda backend) ------------------------------------------------------------------

// Median device time of `repeat` runs of f on `stream` (after one warm-up).
double time_device(stream_t stream, int repeat, const std::function<void()>& f) {
  f();
  synchronize(stream);
  DeviceTimer timer;
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    timer.start(stream);
    f();
    timer.stop(stream);
    t.push_back(timer.seconds());
  }
  return median(t);
}

struct DeviceArena {
  DeviceBuffer<char> in, out;
  template <class T>
  T* input() { return reinterpret_cast<T*>(in.data()); }
  template <class T>
  T* output() { return reinterpret_cast<T*>(out.data()); }
};

// Copy bandwidth (bytes read + written per second) of a D2D copy of n int32.
double copy_bandwidth(DeviceArena& a, std::int64_t n, Stream& s, int repeat) {
  const std::size_t bytes = static_cast<std::size_t>(n) * 4;
  const double t = time_device(s, repeat, [&] { copy_bytes_async(a.out.data(), a.in.data(), bytes, s); });
  return 2.0 * bytes / t;
}

template <class In, class Out>
double rate_of(LocalScan<In, Out>& scan, DeviceArena& a, std::int64_t n, Mode mode, Stream& s, int repeat,
               double* seconds) {
  *seconds = time_device(s, repeat, [&] { scan.scan(a.input<In>(), a.output<Out>(), n, mode, Out(0)); });
  return n / *seconds / 1e9;
}

template <class In, class Out>
void bench_types(DeviceArena& a, std::int64_t n, double bandwidth, Stream& s, int repeat, BenchReport& report) {
  const double bound = bandwidth / (sizeof(In) + sizeof(Out)) / 1e9;
  const std::string types = sizeof(In) == sizeof(Out) ? std::string(to_string(value_type_of<In>()))
                                                      : fmt::format("{}->{}", to_string(value_type_of<In>()),
                                                                    to_string(value_type_of<Out>()));
  generate_device(a.input<In>(), n, 0, bench_generator(std::is_floating_point_v<In>), s);
  for (Variant v : {Variant::lookback, Variant::cub, Variant::thrust}) {
    auto scan = make_local_scan<In, Out>(v, s);
    double t = 0;
    const double r = rate_of(*scan, a, n, Mode::inclusive, s, repeat, &t);
    report.rows.push_back({fmt::format("{} {}", to_string(v), types), size_text(n), t, r, "G elements/s", r / bound, ""});
  }
}

// ---- look-back candidates (TESSERA_BENCH_SCAN_LOOKBACK) ----------------------------------------

// The candidates the environment asks for: "all", or names separated by commas (each run for
// the element types that have it; unknown names are reported).
std::vector<std::string> requested_candidates() {
  const auto requested = env::get_words("TESSERA_BENCH_SCAN_LOOKBACK");
  if (!requested) return {};
  const auto int32 = lookback_candidate_names<std::int32_t>();
  const auto int64 = lookback_candidate_names<std::int64_t>();
  if (*requested == std::vector<std::string>{"all"}) {
    std::vector<std::string> all = int32;
    all.insert(all.end(), int64.begin(), int64.end());
    return all;
  }
  std::vector<std::string> names;
  for (const std::string& name : *requested) {
    const bool known = std::find(int32.begin(), int32.end(), name) != int32.end() ||
                       std::find(int64.begin(), int64.end(), name) != int64.end();
    if (known)
      names.push_back(name);
    else
      log::warn("TESSERA_BENCH_SCAN_LOOKBACK: no look-back candidate '{}' (int32: {}; int64: {})", name,
                fmt::join(int32, ","), fmt::join(int64, ","));
  }
  return names;
}

// Each requested candidate of element type T at each size, next to CUB measured just before it
// (rate, fraction of the copy bound, ratio to CUB), its result checked bitwise against CUB's.
// A line per candidate also goes to stderr at once, so a run cut short still tells. Returns
// the worst ratio to CUB of each candidate over the sizes.
template <class T>
std::vector<std::pair<std::string, double>> bench_candidates(DeviceArena& a, const std::vector<std::int64_t>& sizes,
                                                             const std::vector<std::string>& requested, Stream& s,
                                                             int repeat, BenchReport& report) {
  const auto available = lookback_candidate_names<T>();
  std::vector<std::string> names;
  for (const auto& n : requested)
    if (std::find(available.begin(), available.end(), n) != available.end()) names.push_back(n);
  std::vector<std::pair<std::string, double>> worst;
  if (names.empty() || sizes.empty()) return worst;
  for (const auto& n : names) worst.emplace_back(n, 1e300);
  const std::string type(to_string(value_type_of<T>()));
  // CUB's result goes to the upper half of the output arena.
  T* reference = reinterpret_cast<T*>(a.out.data() + a.out.bytes() / 2);
  generate_device(a.input<T>(), sizes.back(), 0, bench_generator(false), s);
  auto cub = make_local_scan<T, T>(Variant::cub, s);
  for (std::int64_t n : sizes) {
    const double bw = copy_bandwidth(a, n * static_cast<std::int64_t>(sizeof(T)) / 4, s, repeat);
    const double bound = bw / (2.0 * sizeof(T)) / 1e9;
    double t_cub = 0;
    const double r_cub = rate_of(*cub, a, n, Mode::inclusive, s, repeat, &t_cub);
    cub->scan(a.input<T>(), reference, n, Mode::inclusive, T(0));
    report.rows.push_back({fmt::format("cub {}", type), size_text(n), t_cub, r_cub, "G elements/s", r_cub / bound,
                           "reference for the candidates below"});
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto scan = make_lookback_candidate<T>(names[i], s);
      double t = 0;
      const double r = rate_of(*scan, a, n, Mode::inclusive, s, repeat, &t);
      const std::int64_t wrong = count_device_differences(a.output<T>(), reference, n, s);
      const double ratio = wrong == 0 ? r / r_cub : 0;
      worst[i].second = std::min(worst[i].second, ratio);
      const std::string note = wrong == 0 ? fmt::format("{:.3f} x cub", ratio)
                                          : fmt::format("WRONG: {} elements differ from cub", wrong);
      report.rows.push_back({fmt::format("cand {} {}", names[i], type), size_text(n), t, r, "G elements/s", r / bound,
                             note});
      std::fprintf(stderr, "scan bench: %s %s n=%s: %.1f G elements/s, %s\n", names[i].c_str(), type.c_str(),
                   size_text(n).c_str(), r, note.c_str());
      std::fflush(stderr);
    }
  }
  return worst;
}

void bench_lookback_candidates(DeviceArena& a, bool quick, int repeat, Stream& s, BenchReport& report) {
  const auto requested = requested_candidates();
  if (requested.empty()) return;
  // int32 where the target is set (2^26, 2^28, 2^30); int64 at 2^28 (fitting half the arena).
  const std::vector<std::int64_t> int32_sizes =
      quick ? std::vector<std::int64_t>{1 << 20, 1 << 22} : std::vector<std::int64_t>{1 << 26, 1 << 28, 1 << 30};
  const std::int64_t int64_size = std::min<std::int64_t>(quick ? 1 << 22 : 1 << 28, a.out.bytes() / 2 / 8);
  auto best = [&](const std::vector<std::pair<std::string, double>>& worst, const char* type, const std::string& sizes) {
    if (worst.empty()) return;
    const auto top = *std::max_element(worst.begin(), worst.end(),
                                       [](const auto& x, const auto& y) { return x.second < y.second; });
    report.rows.push_back({fmt::format("cand best {}", type), sizes, 0, top.second, "x cub (worst size)", 0,
                           top.first});
  };
  best(bench_candidates<std::int32_t>(a, int32_sizes, requested, s, repeat, report), "int32",
       quick ? "2^20..2^22" : "2^26..2^30");
  best(bench_candidates<std::int64_t>(a, {int64_size}, requested, s, repeat, report), "int64", size_text(int64_size));
}

void bench_single_gpu(const BenchOptions& o, BenchReport& report) {
  const std::vector<std::int64_t> sizes =
      o.quick ? std::vector<std::int64_t>{1 << 20, 1 << 22}
              : std::vector<std::int64_t>{1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30};
  const std::int64_t other = o.quick ? 1 << 22 : 1 << 28;  // size of the other types' rows
  const std::int64_t max_n = std::max(sizes.back(), o.quick ? std::int64_t{1 << 22} : kSeedLength);
  Stream s;
  DeviceArena a{DeviceBuffer<char>(static_cast<std::size_t>(max_n) * 8),
                DeviceBuffer<char>(static_cast<std::size_t>(max_n) * 8)};

  // int32 at every size: every GPU variant, the copy bound, and lookback / CUB.
  generate_device(a.input<std::int32_t>(), max_n, 0, bench_generator(false), s);
  std::vector<std::unique_ptr<LocalScan<std::int32_t, std::int32_t>>> scans;
  for (Variant v : device_variants()) scans.push_back(make_local_scan<std::int32_t, std::int32_t>(v, s));
  double bandwidth_at_other = 0;
  for (std::int64_t n : sizes) {
    const double bw = copy_bandwidth(a, n, s, o.repeat);
    if (n == other) bandwidth_at_other = bw;
    const double bound = bw / 8 / 1e9;
    report.rows.push_back({"copy d2d", size_text(n), 2.0 * n * 4 / bw, bw / 1e9, "GB/s", 0,
                           fmt::format("bound int32: {:.1f} G elements/s", bound)});
    double lookback = 0, cub = 0;
    for (auto& scan : scans) {
      double t = 0;
      const double r = rate_of(*scan, a, n, Mode::inclusive, s, o.repeat, &t);
      if (scan->variant() == Variant::lookback) lookback = r;
      if (scan->variant() == Variant::cub) cub = r;
      report.rows.push_back({std::string(to_string(scan->variant())), size_text(n), t, r, "G elements/s", r / bound, "int32"});
    }
    report.rows.push_back({"lookback / cub", size_text(n), 0, cub > 0 ? lookback / cub : 0, "ratio", 0,
                           n >= (1 << 26) ? "target >= 1.0" : ""});
  }
  if (bandwidth_at_other == 0) bandwidth_at_other = copy_bandwidth(a, other, s, o.repeat);

  // Tile shapes of the lookback kernel (threads x items per thread), for tuning.
  for (auto [threads, items] : {std::pair{128, 16}, {128, 24}, {128, 32}, {256, 16}, {256, 24}}) {
    auto scan = make_lookback_int32_shape(threads, items, s);
    double t = 0;
    const double r = rate_of(*scan, a, other, Mode::inclusive, s, o.repeat, &t);
    report.rows.push_back({fmt::format("lookback {}x{}", threads, items), size_text(other), t, r, "G elements/s",
                           r / (bandwidth_at_other / 8 / 1e9), "tile shape"});
  }
  // Look-back candidates, when TESSERA_BENCH_SCAN_LOOKBACK asks for them.
  bench_lookback_candidates(a, o.quick, o.repeat, s, report);
  // Exclusive int32, then the other types.
  for (Variant v : {Variant::lookback, Variant::cub}) {
    auto scan = make_local_scan<std::int32_t, std::int32_t>(v, s);
    double t = 0;
    const double r = rate_of(*scan, a, other, Mode::exclusive, s, o.repeat, &t);
    report.rows.push_back({fmt::format("{} int32 exclusive", to_string(v)), size_text(other), t, r, "G elements/s",
                           r / (bandwidth_at_other / 8 / 1e9), ""});
  }
  bench_types<std::int32_t, std::int64_t>(a, other, bandwidth_at_other, s, o.repeat, report);
  bench_types<std::int64_t, std::int64_t>(a, other, bandwidth_at_other, s, o.repeat, report);
  bench_types<float, float>(a, other, bandwidth_at_other, s, o.repeat, report);
  bench_types<double, double>(a, other, bandwidth_at_other, s, o.repeat, report);

  // The seed's run: 123,123,123 int32 with and without the host copies (pinned memory), and
  // the two host scans for its CPU column.
  const std::int64_t n = o.quick ? 1 << 20 : kSeedLength;
  const auto bytes = static_cast<std::size_t>(n) * 4;
  PinnedBuffer<std::int32_t> host_in(static_cast<std::size_t>(n)), host_out(static_cast<std::size_t>(n));
  generate_values(host_in.data(), n, 0, bench_generator(false));
  generate_device(a.input<std::int32_t>(), n, 0, bench_generator(false), s);  // the other types overwrote it
  for (Variant v : {Variant::hillis_steele, Variant::blelloch, Variant::blelloch_padded, Variant::lookback, Variant::cub}) {
    auto scan = make_local_scan<std::int32_t, std::int32_t>(v, s);
    double t = 0;
    const double r = rate_of(*scan, a, n, Mode::inclusive, s, o.repeat, &t);
    report.rows.push_back({fmt::format("{} (no copies)", to_string(v)), size_text(n), t, r, "G elements/s", 0, "seed run"});
    const double tc = time_device(s, o.repeat, [&] {
      copy_bytes_async(a.in.data(), host_in.data(), bytes, s);
      scan->scan(a.input<std::int32_t>(), a.output<std::int32_t>(), n, Mode::inclusive, 0);
      copy_bytes_async(host_out.data(), a.out.data(), bytes, s);
    });
    report.rows.push_back({fmt::format("{} (with copies)", to_string(v)), size_text(n), tc, n / tc / 1e9,
                           "G elements/s", 0, "seed run, pinned host memory"});
  }
  for (Variant v : {Variant::cpu_serial, Variant::cpu}) {
    auto scan = make_local_scan<std::int32_t, std::int32_t>(v);
    std::vector<double> t;
    for (int i = 0; i < std::max(1, o.repeat / 4); ++i) {
      HostTimer timer;
      scan->scan(host_in.data(), host_out.data(), n, Mode::inclusive, 0);
      t.push_back(timer.seconds());
    }
    const double m = median(t);
    report.rows.push_back({std::string(to_string(v)), size_text(n), m, n / m / 1e9, "G elements/s", 0, "seed run, host"});
  }
}

// Data resident on every rank's GPU: the distributed scan against P x one GPU alone, with the
// block totals exchanged by host MPI (transport null) or on `transport` without leaving the GPU.
void bench_distributed_variant(comm::Context& ctx, Variant v, std::int64_t n_local, DeviceArena& a, Stream& s,
                               int repeat, BenchReport& report, comm::Transport* transport = nullptr) {
  auto local = make_local_scan<std::int32_t, std::int32_t>(v, s);
  const double single = time_collective(ctx, repeat, [&] {
    local->scan(a.input<std::int32_t>(), a.output<std::int32_t>(), n_local, Mode::inclusive, 0);
    local->synchronize();
  });
  std::vector<double> begin, exscan, finish;
  bool on_device = false;
  const double dist = time_collective(ctx, repeat, [&] {
    const auto r = distributed_scan(ctx, *local, a.input<std::int32_t>(), a.output<std::int32_t>(), n_local,
                                    Mode::inclusive, transport);
    on_device = r.on_device;
    begin.push_back(r.times.begin);
    exscan.push_back(r.times.exscan);
    finish.push_back(r.times.finish);
  });
  const double p = ctx.size();
  const double rate = p * n_local / dist / 1e9;
  const double ideal = p * n_local / single / 1e9;
  const std::string size = size_text(n_local) + "/rank";
  const std::string name =
      fmt::format("dist {} P={}{}", to_string(v), ctx.size(),
                  on_device ? fmt::format(", totals on {}", comm::to_string(transport->kind())) : std::string());
  report.rows.push_back({name, size, dist, rate, "G elements/s", rate / ideal,
                         fmt::format("of P x one GPU ({:.1f} G/s); target >= 90%", ideal)});
  auto phase = [&](const char* what, std::vector<double>& t) {
    const double m = comm::allreduce(ctx, median(t), comm::Op::max);
    report.rows.push_back({fmt::format("  {} {}", name, what), size, m, 0, "", 0, "median, slowest rank"});
  };
  if (on_device) return;  // one stream-ordered phase
  phase("begin", begin);
  phase("exscan+wait", exscan);
  phase("finish", finish);
  if (v != Variant::lookback) return;
  // For comparison only: had each block's total been known in advance, the distributed scan
  // would be an exscan plus one seeded single-pass scan. The gap to the row above is the
  // reduction that must read every element once more before any offset exists.
  const wide_t<std::int32_t> known = local->begin(a.input<std::int32_t>(), a.output<std::int32_t>(), n_local,
                                                  Mode::inclusive, true);
  const double seeded = time_collective(ctx, repeat, [&] {
    const auto offset = comm::exscan(ctx, known);
    local->scan(a.input<std::int32_t>(), a.output<std::int32_t>(), n_local, Mode::inclusive,
                static_cast<std::int32_t>(offset));
    local->synchronize();
  });
  const double r2 = p * n_local / seeded / 1e9;
  report.rows.push_back({fmt::format("dist {} P={} totals known", to_string(v), ctx.size()), size, seeded, r2,
                         "G elements/s", r2 / ideal, "not a scan from scratch: the block totals given"});
}

void bench_distributed(comm::Context& ctx, const BenchOptions& o, BenchReport& report) {
  const std::int64_t n_local = o.quick ? 1 << 22 : 1 << 28;
  Stream s;
  DeviceArena a{DeviceBuffer<char>(static_cast<std::size_t>(n_local) * 4),
                DeviceBuffer<char>(static_cast<std::size_t>(n_local) * 4)};
  const Range block{static_cast<std::int64_t>(ctx.rank()) * n_local, n_local};
  generate_device(a.input<std::int32_t>(), n_local, block.begin, bench_generator(false), s);
  s.synchronize();
  for (Variant v : {Variant::lookback, Variant::cub, Variant::blelloch_padded})
    bench_distributed_variant(ctx, v, n_local, a, s, o.repeat, report);
  // The look-back scan again with the totals exchanged on the device transport (what a run
  // with a GPU transport does): no device sync and no host collective between the passes.
  const comm::TransportChoice device = comm::make_transport(ctx, Backend::cuda, "auto");
  bench_distributed_variant(ctx, Variant::lookback, n_local, a, s, o.repeat, report, device.transport.get());
  // The exchange alone: one 64-bit exscan between barriers.
  const double ex = time_collective(ctx, o.repeat, [&] { (void)comm::exscan(ctx, std::int64_t{ctx.rank() + 1}); });
  report.rows.push_back({fmt::format("exscan alone P={}", ctx.size()), "8 B/rank", ex, 0, "", 0, "comm::exscan, int64"});
}
#endif

}  // namespace

BenchReport bench_scan(comm::Context& ctx, const BenchOptions& o) {
  const Backend backend = resolve_backend(parse_backend(o.backend, "--backend"));
  BenchReport report;
  report.title = fmt::format("tessera bench scan: {} rank(s), backend {}", ctx.size(), to_string(backend));
  if (backend == Backend::cpu) {
    report.device = "CPU";
    report.limit = "one read + one write per element at the measured host memcpy bandwidth";
    bench_host(ctx, o, report);
    return report;
  }
#if defined(TESSERA_HAVE_CUDA)
  const auto dev = current_device_info();
  report.device = dev ? fmt::format("{} x{}", dev->name, ctx.size()) : "GPU";
  report.limit = "one read + one write per element at the device copy bandwidth measured in this run (D2D memcpy)";
  // Single-GPU tables on rank 0 only (other ranks may share its GPU); then all ranks together.
  comm::agree(ctx, [&] {
    if (ctx.is_root()) bench_single_gpu(o, report);
  });
  bench_distributed(ctx, o, report);
#endif
  return report;
}

}  // namespace tessera::scan
