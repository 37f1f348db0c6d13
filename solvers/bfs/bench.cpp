// `tessera bench bfs`: GTEPS of each search algorithm on Graph500 Kronecker graphs (edgefactor
// 16), counted as Graph500 counts (input edges of the component per second, harmonic mean
// over the roots), every search validated. The seed's edge-parallel baseline runs at small
// scales only (its work grows with levels * edges). Scales, roots and algorithms can be set
// with TESSERA_BENCH_BFS_SCALES="20,22", TESSERA_BENCH_BFS_ROOTS=16 and
// TESSERA_BENCH_BFS_ALGORITHMS="direction_optimizing,top_down"; TESSERA_BENCH_BFS_ALPHAS="14,28,14/48"
// runs direction_optimizing once per alpha or alpha/beta (Beamer's switch, algorithm.hpp), one
// row each, TESSERA_BENCH_BFS_EAGER="0,4096" once per eager-pair count, and
// TESSERA_BENCH_BFS_EXCHANGE="peer,transport" once per exchange mode (search.hpp), and
// TESSERA_BENCH_BFS_LOOP="device,host" once with the level loop on the GPU where it can run
// there and once driven by the host (SearchOptions::device_levels), and
// TESSERA_BENCH_BFS_HUBS="auto,0,1024" once per hub degree of the delegated hubs (0: none;
// SearchOptions::hub_degree), and TESSERA_BENCH_BFS_WAKE="on,off" with and without waking the
// peer links before each search (SearchOptions::wake_links). With TESSERA_BFS_PROFILE=1 the first
// TESSERA_BENCH_BFS_PROFILED roots (2) are searched once more, profiled. With P
// ranks the same table measures the multi-rank search (compare runs with different -n for
// scaling).
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "comm/collectives.hpp"
#include "comm/transport.hpp"
#include "core/buffer.hpp"
#include "core/device_info.hpp"
#include "core/env.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "solvers/bfs/graph_spec.hpp"
#include "solvers/bfs/roots.hpp"
#include "solvers/bfs/search.hpp"
#include "solvers/bfs/solver_info.hpp"
#include "solvers/bfs/statistics.hpp"
#include "solvers/bfs/validate.hpp"

namespace tessera::bfs {
namespace {

std::vector<int> scales_from_env(const std::vector<int>& fallback) {
  const auto items = env::get_integers("TESSERA_BENCH_BFS_SCALES");
  if (!items || items->empty()) return fallback;
  return std::vector<int>(items->begin(), items->end());
}

// The algorithms named in TESSERA_BENCH_BFS_ALGORITHMS (InputError for an unknown name), or
// all of `fallback`.
std::vector<Algorithm> algorithms_from_env(const std::vector<Algorithm>& fallback) {
  const auto names = env::get_words("TESSERA_BENCH_BFS_ALGORITHMS");
  if (!names || names->empty()) return fallback;
  std::vector<Algorithm> out;
  for (const std::string& name : *names) {
    try {
      const Algorithm a = parse_algorithm(name);
      if (std::find(fallback.begin(), fallback.end(), a) != fallback.end()) out.push_back(a);
    } catch (const std::invalid_argument&) {
      throw InputError(fmt::format("TESSERA_BENCH_BFS_ALGORITHMS: unknown algorithm '{}'", name));
    }
  }
  return out;
}

// A positive number, the whole of `text`; nullopt otherwise.
std::optional<double> positive_number(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !(value > 0)) return std::nullopt;
  return value;
}

// The direction policies to measure: the default, or one per TESSERA_BENCH_BFS_ALPHAS item,
// "alpha" or "alpha/beta" (with a row-name suffix saying which).
std::vector<std::pair<std::string, DirectionPolicy>> policies_from_env() {
  const auto items = env::get_words("TESSERA_BENCH_BFS_ALPHAS");
  if (!items || items->empty()) return {{"", DirectionPolicy{}}};
  std::vector<std::pair<std::string, DirectionPolicy>> out;
  for (const std::string& item : *items) {
    const std::size_t slash = item.find('/');
    const auto alpha = positive_number(item.substr(0, slash));
    const auto beta = slash == std::string::npos ? std::optional<double>(DirectionPolicy{}.beta)
                                                 : positive_number(item.substr(slash + 1));
    if (!alpha || !beta)
      throw InputError(fmt::format("TESSERA_BENCH_BFS_ALPHAS: '{}' is not alpha or alpha/beta (positive numbers)", item));
    const DirectionPolicy policy{*alpha, *beta};
    out.emplace_back(slash == std::string::npos ? fmt::format(" alpha={}", item) : fmt::format(" alpha/beta={}", item),
                     policy);
  }
  return out;
}

// The eager pairs per rank to measure (SearchOptions::eager_pairs): the default (-1), or one
// run per TESSERA_BENCH_BFS_EAGER item (0 = none: counts first, then the pairs).
std::vector<std::int64_t> eager_from_env() {
  const auto items = env::get_integers("TESSERA_BENCH_BFS_EAGER");
  if (!items || items->empty()) return {-1};
  for (long long v : *items)
    if (v < 0) throw InputError(fmt::format("TESSERA_BENCH_BFS_EAGER: {} is negative (pairs per rank)", v));
  return std::vector<std::int64_t>(items->begin(), items->end());
}

// The exchange modes to measure (SearchOptions::exchange): auto, or one run per
// TESSERA_BENCH_BFS_EXCHANGE item (auto, peer, transport).
std::vector<ExchangeMode> exchanges_from_env() {
  const auto items = env::get_words("TESSERA_BENCH_BFS_EXCHANGE");
  if (!items || items->empty()) return {ExchangeMode::automatic};
  std::vector<ExchangeMode> out;
  for (const std::string& item : *items) {
    try {
      out.push_back(parse_exchange_mode(item));
    } catch (const InputError& e) {
      throw InputError(fmt::format("TESSERA_BENCH_BFS_EXCHANGE: {}", e.what()));
    }
  }
  return out;
}

constexpr std::int64_t kDefaultHubs = INT64_MIN;  // the row of SearchOptions' default

// The hub degrees to measure (SearchOptions::hub_degree): the default (none), or one run per
// TESSERA_BENCH_BFS_HUBS item: "auto" (-1), 0 (no delegates) or a degree.
std::vector<std::int64_t> hub_degrees_from_env() {
  const auto items = env::get_words("TESSERA_BENCH_BFS_HUBS");
  if (!items || items->empty()) return {kDefaultHubs};
  std::vector<std::int64_t> out;
  for (const std::string& item : *items) {
    if (item == "auto") {
      out.push_back(-1);
      continue;
    }
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0)
      throw InputError(fmt::format("TESSERA_BENCH_BFS_HUBS: '{}' is not auto or a degree >= 0", item));
    out.push_back(v);
  }
  return out;
}

// A yes/no setting to measure both ways: the default only (nullopt), or one run per item of
// environment variable `name`, each `yes` (true) or `no` (false).
std::vector<std::optional<bool>> choices_from_env(const char* name, const char* yes, const char* no) {
  const auto items = env::get_words(name);
  if (!items || items->empty()) return {std::nullopt};
  std::vector<std::optional<bool>> out;
  for (const std::string& item : *items) {
    if (item != yes && item != no) throw InputError(fmt::format("{}: '{}' is not {} or {}", name, item, yes, no));
    out.emplace_back(item == yes);
  }
  return out;
}

// Device copy bandwidth (read + write bytes per second), best of a few 256 MiB copies.
double device_copy_bandwidth() {
  const std::size_t bytes = std::size_t{256} << 20;
  DeviceBuffer<unsigned char> a(bytes), b(bytes);
  fill_device_bytes(a.data(), 1, bytes);
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    HostTimer t;
    copy_bytes(b.data(), a.data(), bytes);
    best = std::max(best, 2.0 * bytes / t.seconds());
  }
  return best;
}

}  // namespace

BenchReport bench(comm::Context& ctx, const BenchOptions& o) {
  Backend backend = Backend::cpu;
  comm::agree(ctx, [&] { backend = resolve_backend(parse_backend(o.backend, "--backend")); });
  if (comm::allreduce(ctx, backend == Backend::cuda ? 1 : 0, comm::Op::min) == 0) backend = Backend::cpu;
  comm::TransportChoice transport = comm::make_transport(ctx, backend, o.transport);

  BenchReport report;
  report.title = fmt::format("tessera bench bfs: Graph500 Kronecker (edgefactor 16), {} rank(s), backend {}, "
                             "transport {}",
                             ctx.size(), to_string(backend), comm::to_string(transport.transport->kind()));
  const auto dev = current_device_info();
  report.device = backend == Backend::cuda && dev ? fmt::format("{} x{}", dev->name, ctx.size()) : "CPU";
  double bound = 0;  // GTEPS if every input edge cost one 4-byte read per direction at copy bandwidth
  if (backend == Backend::cuda) {
    const double bw = comm::allreduce(ctx, device_copy_bandwidth(), comm::Op::min);
    bound = bw * ctx.size() / 8.0 / 1e9;
    report.limit = fmt::format("edge-read bound: 8 B per input edge at the measured device copy bandwidth "
                               "({:.0f} GB/s per GPU) = {:.1f} GTEPS; bottom-up skips edges and can exceed it",
                               bw / 1e9, bound);
  }
  const std::vector<int> scales =
      scales_from_env(o.quick ? std::vector<int>{10, 12} : std::vector<int>{16, 18, 20, 22, 24});
  const int root_count = static_cast<int>(env::get_integer("TESSERA_BENCH_BFS_ROOTS").value_or(o.quick ? 8 : 64));
  // Profiled searches after the timed ones (TESSERA_BFS_PROFILE=1): per root, each rank's levels.
  const auto profiled_roots = static_cast<std::size_t>(env::get_integer("TESSERA_BENCH_BFS_PROFILED").value_or(2));
  const int seed_max_scale = o.quick ? 12 : 18;  // edge_parallel beyond this takes too long

  for (int scale : scales) {
    GraphSpec spec;
    spec.kronecker.scale = scale;
    const BuiltGraph built = build_graph_from_spec(ctx, spec);
    const LocalGraph& g = built.graph;
    log::info("bench bfs: scale {}: {} vertices, {} input edges, {} CSR entries, built in {:.2f} s", scale,
              g.vertices(), g.input_edges, g.directed_edges, built.construction_seconds);
    const std::vector<std::int64_t> roots = sample_roots(ctx, g, root_count, 2);
    std::vector<Algorithm> algorithms = {Algorithm::direction_optimizing, Algorithm::top_down, Algorithm::bottom_up};
    if (scale <= seed_max_scale) algorithms.push_back(Algorithm::edge_parallel);
    if (backend == Backend::cpu && ctx.size() == 1) algorithms.push_back(Algorithm::serial);
    struct Run {
      Algorithm alg;
      std::string label;  // row-name suffix
      SearchOptions options;
    };
    std::vector<Run> runs;
    const std::vector<std::int64_t> eagers = eager_from_env();
    const std::vector<ExchangeMode> exchanges = exchanges_from_env();
    // Who runs the level loop (SearchOptions::device_levels), whether the peer links are woken
    // before each search (SearchOptions::wake_links).
    const std::vector<std::optional<bool>> loops = choices_from_env("TESSERA_BENCH_BFS_LOOP", "device", "host");
    const std::vector<std::int64_t> hub_degrees = hub_degrees_from_env();
    const std::vector<std::optional<bool>> wakes = choices_from_env("TESSERA_BENCH_BFS_WAKE", "on", "off");
    for (Algorithm alg : algorithms_from_env(algorithms)) {
      if (alg != Algorithm::direction_optimizing) {
        runs.push_back({alg, "", SearchOptions{alg, DirectionPolicy{}}});
        continue;
      }
      for (const auto& [label, policy] : policies_from_env())
        for (std::int64_t eager : eagers)
          for (ExchangeMode exchange : exchanges)
            for (const std::optional<bool>& loop : loops)
              for (std::int64_t hubs : hub_degrees)
                for (const std::optional<bool>& wake : wakes)
                  runs.push_back(
                      {alg,
                       label + (eager < 0 ? std::string() : fmt::format(" eager={}", eager)) +
                           (exchange == ExchangeMode::automatic ? std::string()
                                                                : fmt::format(" exchange={}", to_string(exchange))) +
                           (loop ? fmt::format(" loop={}", *loop ? "device" : "host") : std::string()) +
                           (hubs == kDefaultHubs ? std::string()
                                                 : hubs < 0 ? std::string(" hubs=auto") : fmt::format(" hubs={}", hubs)) +
                           (wake ? fmt::format(" wake={}", *wake ? "on" : "off") : std::string()),
                       SearchOptions{alg, policy, eager, exchange, loop.value_or(true),
                                     hubs == kDefaultHubs ? SearchOptions{}.hub_degree : hubs, wake.value_or(true)}});
    }
    for (const auto& [alg, label, options] : runs) {
      SearchDriver driver(ctx, *transport.transport, g, backend, options);
      driver.set_profiling(false);  // the timed searches run unprofiled; see below
      driver.search(roots.front());  // warm-up: first touches, lazy buffers
      std::vector<double> teps, seconds;
      int failed = 0, td = 0, bu = 0;
      double validation_seconds = 0.0;  // all ranks together: validate() is collective
      std::string first_failure;
      for (std::int64_t root : roots) {
        const SearchResult r = driver.search(root);
        const HostTimer validation;
        const ValidationReport v = validate(driver, root);
        validation_seconds += validation.seconds();
        if (!v.ok()) {
          ++failed;
          if (first_failure.empty()) first_failure = v.message;
        }
        teps.push_back(r.teps() / 1e9);
        seconds.push_back(r.seconds);
        td += r.top_down_levels;
        bu += r.bottom_up_levels;
      }
      if (LevelProfile::requested()) {  // where the time goes, in more (untimed) searches
        driver.set_profiling(true);
        for (std::size_t i = 0; i < std::min(profiled_roots, roots.size()); ++i) driver.search(roots[i]);
      }
      if (failed) log::error("bench bfs: {}/{} scale {}: {} of {} searches failed validation; first: {}",
                             to_string(backend), to_string(alg), scale, failed, roots.size(), first_failure);
      const Statistics st = summarize(teps);
      BenchRow row;
      row.name = fmt::format("{}/{}{}", to_string(backend), to_string(alg), label);
      row.size = fmt::format("scale {}", scale);
      row.seconds = summarize(seconds).median;
      row.rate = st.harmonic_mean;
      row.unit = "GTEPS (hmean)";
      row.fraction = bound > 0 ? st.harmonic_mean / bound : 0.0;
      row.note = fmt::format("{} roots {} ({:.3g} s each); min {:.3g} max {:.3g}; levels {:.1f} td + {:.1f} bu",
                             roots.size(),
                             failed ? fmt::format("{} FAILED VALIDATION", failed) : std::string("validated"),
                             validation_seconds / double(roots.size()), st.min, st.max, double(td) / roots.size(),
                             double(bu) / roots.size());
      if (ctx.size() > 1) row.note += driver.exchanges_on_device() ? "; peer memory" : "; transport";
      if (driver.levels_on_device()) row.note += "; levels on the GPU";
      if (driver.delegated_hubs() > 0)
        row.note += fmt::format("; {} hubs of degree >= {}", driver.delegated_hubs(), driver.hub_degree());
      log::info("bench bfs: {} {}: {:.4g} GTEPS", row.name, row.size, row.rate);
      report.rows.push_back(row);
    }
  }
  return report;
}

}  // namespace tessera::bfs
