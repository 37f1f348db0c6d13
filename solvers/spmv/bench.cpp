// `tessera bench spmv`: y = A x by every variant of the engine of the run's backend (the cuda
// engine with cuSPARSE beside it, or the cpu engine) on generated matrices, distributed over
// the ranks of the run, in GFLOP/s (2 flops per nonzero) and in effective GB/s by the byte
// model (each variant's matrix layout read once, x read once, y written once), as a fraction
// of the copy bandwidth measured in the same run (device-to-device memcpy on a GPU, memcpy of
// the ranks on the host).
#include "solvers/spmv/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <functional>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/host_threads.hpp"
#include "comm/transport.hpp"
#include "core/device_info.hpp"
#include "core/env.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "solvers/bench_timing.hpp"
#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/cg.hpp"
#include "solvers/spmv/distributed_spmv.hpp"
#include "solvers/spmv/matrix_io.hpp"
#include "solvers/spmv/stats.hpp"
#include "solvers/spmv/vectors.hpp"

namespace tessera::spmv {
namespace {

// Bytes one product moves on this rank by the byte model.
double layout_bytes(const BlockInfo& b, double value) {
  switch (b.variant) {
    case Variant::coo_segmented: return static_cast<double>(b.nnz) * (value + 8.0);
    case Variant::hybrid:
      return static_cast<double>(b.hybrid.ell_slots) * (value + 4.0) + static_cast<double>(b.hybrid.coo_entries) * (value + 8.0);
    default: return static_cast<double>(b.nnz) * (value + 4.0) + static_cast<double>(b.rows + 1) * 8.0;
  }
}

MatrixSpec bench_matrix(MatrixSource source, std::int64_t n) {
  MatrixSpec s;
  s.source = source;
  s.n = n;
  s.seed = 2024;
  s.min_row_length = 4;
  s.exponent = 2.2;
  s.max_row_length = 1 << 14;
  s.half_bandwidth = 7;  // 15 nonzeros per row
  return s;
}


// One unpreconditioned CG iteration with the engine's `auto` kernel, against its byte model:
// the SpMV's bytes plus 11 vector passes (p.q reads 2; x += alpha p, r -= alpha q with r.r
// read 4 and write 2; p = r + beta p reads 2 and writes 1).
void bench_cg(comm::Context& ctx, const BenchOptions& o, Backend backend, comm::Transport& transport,
              const DistMatrix<double>& a, const std::string& name, double copy_rate, BenchReport& report) {
  EngineOptions eo;
  eo.variant = choose_variant(Variant::automatic, backend, matrix_stats(ctx, a, HybridRule::third));
  eo.threads = comm::cpu_threads_per_rank(ctx);
  const auto engine = make_engine<double>(backend, eo);
  DistributedSpmv<double> spmv(ctx, transport, *engine, a);
  Cg<double> cg(ctx, spmv, CgOptions{0.0, false, 0}, {}, name);
  const std::vector<double> b(static_cast<std::size_t>(a.my_rows.count), 1.0);
  const int iterations = o.quick ? 5 : 50;
  cg.start(b);  // once (it uploads b): the timed calls go on iterating from where they stand
  const double t =
      time_collective(ctx, std::max(3, o.repeat / 4), [&] { for (int k = 0; k < iterations; ++k) cg.iterate(); }) /
      iterations;
  const double bytes = comm::allreduce(
      ctx, layout_bytes(spmv.local_info(), 8) + layout_bytes(spmv.ghost_info(), 8) +
               8.0 * static_cast<double>(a.my_rows.count + a.my_cols.count + a.ghost_cols.size()) +
               11.0 * 8.0 * static_cast<double>(a.my_rows.count),
      comm::Op::sum);
  report.rows.push_back({fmt::format("cg iteration ({})", to_string(eo.variant)), name, t, 1.0 / t, "iterations/s",
                         bytes / t / copy_rate,
                         fmt::format("{:.2f} GB/s effective by the byte model; the limit would be {:.4f} ms",
                                     bytes / t / 1e9, bytes / copy_rate * 1e3)});
}

}  // namespace

BenchReport bench_spmv(comm::Context& ctx, const BenchOptions& o) {
  Backend backend = Backend::cpu;
  comm::agree(ctx, [&] { backend = resolve_backend(parse_backend(o.backend, "--backend")); });
  const bool gpu = backend == Backend::cuda;
  const Memory memory = gpu ? Memory::device : Memory::host;
  BenchReport report;
  const int threads = comm::cpu_threads_per_rank(ctx);
  report.title = fmt::format("spmv: y = A x, float64, {} engine, {} rank(s)", gpu ? "cuda" : "cpu", ctx.size());
  report.device = gpu ? fmt::format("{} x{}", current_device_info() ? current_device_info()->name : std::string("GPU"),
                                    ctx.size())
                      : fmt::format("host: {} rank(s) x {} OpenMP threads", ctx.size(), threads);
  report.limit = gpu ? "device-to-device memcpy bandwidth (read + write), per GPU, times the ranks"
                     : "memcpy bandwidth of the same ranks (read + write)";

  // The copy bandwidth of all ranks at once.
  double copy_rate = 0;
  if (gpu) {
    const std::size_t copy_mib = o.quick ? 256 : 1024;
    const double mine = device_copy_bandwidth(copy_mib << 20, 10);
    copy_rate = comm::allreduce(ctx, mine, comm::Op::min) * ctx.size();
    report.rows.push_back({"copy D2D", fmt::format("{} MiB", copy_mib), 2.0 * double(copy_mib << 20) / mine,
                           copy_rate / 1e9, "GB/s", 1.0, "read + write, all ranks"});
  } else {
    const std::size_t copy_bytes = std::size_t{o.quick ? 32u : 256u} << 20;
    std::vector<char> src(copy_bytes, 1), dst(copy_bytes);
    const double copy_t =
        time_collective(ctx, std::max(3, o.repeat / 4), [&] { std::memcpy(dst.data(), src.data(), copy_bytes); });
    copy_rate = 2.0 * static_cast<double>(copy_bytes) * ctx.size() / copy_t;
    report.rows.push_back({"memcpy (host)", fmt::format("{} MiB/rank", copy_bytes >> 20), copy_t, copy_rate / 1e9,
                           "GB/s", 1.0, "read + write"});
  }

  const comm::TransportChoice transport = comm::make_transport(ctx, backend, "auto");
  using Case = std::pair<MatrixSpec, std::string>;
  // Weak scaling: rows per rank fixed, the kernels whose per-GPU rate the scaling table holds.
  const std::optional<long long> weak = env::get_integer("TESSERA_BENCH_SPMV_WEAK");
  // On a GPU: 7-point Poisson at 256^3 rows and a 2^22-row power-law matrix (the sizes the
  // cuSPARSE reference numbers were taken at), split over the ranks of the run.
  std::vector<Case> matrices;
  if (weak) {
    const auto n = static_cast<std::int64_t>(std::llround(static_cast<double>(*weak) * std::cbrt(double(ctx.size()))));
    matrices = {{bench_matrix(MatrixSource::poisson7, n),
                 fmt::format("poisson7 {}^3 (weak: ~{}^3 rows per rank)", n, *weak)}};
    report.title += fmt::format(", weak scaling at ~{}^3 rows per rank", *weak);
  } else if (o.quick)
    matrices = {{bench_matrix(MatrixSource::poisson7, 24), "poisson7 24^3"},
                {bench_matrix(MatrixSource::poisson27, 16), "poisson27 16^3"},
                {bench_matrix(MatrixSource::powerlaw, 1 << 14), "powerlaw 2^14"},
                {bench_matrix(MatrixSource::banded, 1 << 14), "banded 2^14"}};
  else if (gpu)
    matrices = {{bench_matrix(MatrixSource::poisson7, 256), "poisson7 256^3"},
                {bench_matrix(MatrixSource::poisson27, 160), "poisson27 160^3"},
                {bench_matrix(MatrixSource::powerlaw, 1 << 22), "powerlaw 2^22"},
                {bench_matrix(MatrixSource::banded, 1 << 23), "banded 2^23"}};
  else
    matrices = {{bench_matrix(MatrixSource::poisson7, 96), "poisson7 96^3"},
                {bench_matrix(MatrixSource::poisson27, 64), "poisson27 64^3"},
                {bench_matrix(MatrixSource::powerlaw, 1 << 20), "powerlaw 2^20"},
                {bench_matrix(MatrixSource::banded, 1 << 20), "banded 2^20"}};
  // The hybrid twice: the seed's 1/3 rule and the 80th-percentile rule (types.hpp); csr-binned
  // with its lane rule and, on a GPU, at every sub-warp width (the measurements behind the rule).
  struct Run {
    Variant v;
    HybridRule rule = HybridRule::third;
    int lanes = 0;
    int bands = 0;
  };
  std::vector<Run> variants{{Variant::csr_scalar},  {Variant::csr_vector},
                            {Variant::coo_segmented}, {Variant::hybrid},
                            {Variant::hybrid, HybridRule::percentile80}, {Variant::merge_path},
                            {Variant::csr_binned}};
  if (weak) variants = {{Variant::hybrid}, {Variant::csr_binned}};
  else if (gpu) {
    for (int lanes : {2, 4, 8, 16}) variants.push_back({Variant::csr_binned, HybridRule::third, lanes});
    for (int bands : {1, 3, 4}) variants.push_back({Variant::csr_binned, HybridRule::third, 0, bands});
  }
  if (gpu) variants.push_back({Variant::cusparse});
  for (const auto& [spec, name] : matrices) {
    LoadedMatrix loaded = load_matrix(ctx, spec);
    const DistMatrix<double> a = make_distributed<double>(ctx, loaded.rows, loaded.part, loaded.cols, spec.describe());
    loaded = {};
    VectorSpec xs;
    xs.source = VectorSource::random;
    Array<double> x(memory, static_cast<std::size_t>(a.my_cols.count));
    x.upload(make_vector<double>(ctx, xs, a.my_cols, a.cols, "x"));
    Array<double> y(memory, static_cast<std::size_t>(a.my_rows.count));
    double cusparse_t = 0;
    std::vector<std::pair<std::size_t, double>> ours;  // report row, time: the ratio to cuSPARSE
    for (const Run& run : variants) {
      EngineOptions eo;
      eo.variant = run.v;
      eo.hybrid_rule = run.rule;
      eo.binned_lanes = run.lanes;
      eo.binned_bands = run.bands;
      eo.threads = threads;
      const auto engine = make_engine<double>(backend, eo);
      DistributedSpmv<double> spmv(ctx, *transport.transport, *engine, a);
      const double t = time_collective(ctx, o.repeat, [&] { spmv.multiply(x.data(), y.data()); });
      if (run.v == Variant::cusparse) cusparse_t = t;
      else ours.push_back({report.rows.size(), t});
      const double bytes = comm::allreduce(
          ctx, layout_bytes(spmv.local_info(), 8) + layout_bytes(spmv.ghost_info(), 8) +
                   8.0 * static_cast<double>(a.my_rows.count + a.my_cols.count + a.ghost_cols.size()),
          comm::Op::sum);
      const double gbs = bytes / t / 1e9;
      const BlockInfo& local = spmv.local_info();
      std::string note = fmt::format("{:.2f} GB/s effective", gbs);
      if (run.v == Variant::hybrid) note += fmt::format(", local ELL width {}", local.hybrid.width);
      if (run.v == Variant::csr_binned)
        note += fmt::format(", local lanes {}, {} long rows, {} column band(s)", local.binned_lanes,
                            local.binned_long_rows, local.binned_bands);
      std::string label(to_string(run.v));
      if (run.v == Variant::hybrid) label = fmt::format("hybrid ({})", to_string(run.rule));
      if (run.v == Variant::csr_binned)
        label = run.lanes   ? fmt::format("csr-binned ({} lanes)", run.lanes)
                : run.bands ? fmt::format("csr-binned ({} bands)", run.bands)
                            : std::string("csr-binned (rules)");
      report.rows.push_back({label, fmt::format("{} ({} nnz)", name, a.nnz), t,
                             2.0 * static_cast<double>(a.nnz) / t / 1e9, "GFLOP/s", gbs * 1e9 / copy_rate, note});
    }
    if (cusparse_t > 0)
      for (const auto& [row, t] : ours) report.rows[row].note += fmt::format("; {:.2f}x cuSPARSE", cusparse_t / t);
    if (spec.source == MatrixSource::poisson7 || spec.source == MatrixSource::poisson27)
      bench_cg(ctx, o, backend, *transport.transport, a, name, copy_rate, report);
  }
  return report;
}

}  // namespace tessera::spmv
