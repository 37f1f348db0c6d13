#include "solvers/nbody/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "comm/transport.hpp"
#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/device_info.hpp"
#include "core/env.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/partition.hpp"
#include "core/timer.hpp"
#include "comm/host_threads.hpp"
#include "solvers/bench_timing.hpp"
#include "solvers/nbody/common_mass.hpp"
#include "solvers/nbody/backend.hpp"
#include "solvers/nbody/forces.hpp"
#include "solvers/nbody/cuda/forces_split.hpp"
#include "solvers/nbody/pair_force.hpp"
#include "solvers/nbody/ring_forces.hpp"
#include "solvers/nbody/rng.hpp"
#include "solvers/nbody/split_shapes.hpp"

namespace tessera::nbody {

double fp32_issue_limit(int sm_count, double clock_hz) {
  return static_cast<double>(sm_count) * 4 * 32 * clock_hz / kInstructionsPerInteraction;
}

namespace {

constexpr double kEps = 0.01;
constexpr const char* kUnit = "G interactions/s";

std::string size_text(std::int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return fmt::format("{}M", n >> 20);
  if (n >= (1 << 10) && n % (1 << 10) == 0) return fmt::format("{}K", n >> 10);
  return fmt::format("{}", n);
}

// Random bodies in the unit cube (the kernels' speed does not depend on where bodies are),
// each of mass 1/n as the generated initial conditions have, or with masses that differ (as
// a snapshot's may: 0.5/n to 1.5/n).
enum class Masses { equal, differ };

template <class T>
std::vector<Vec4<T>> random_bodies(std::int64_t n, std::uint64_t seed, Masses masses = Masses::equal) {
  std::vector<Vec4<T>> b(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    BodyRandom r(seed, static_cast<std::uint64_t>(i));
    const T x = T(r.uniform(-1, 1)), y = T(r.uniform(-1, 1)), z = T(r.uniform(-1, 1));
    const double m = masses == Masses::equal ? 1.0 : r.uniform(0.5, 1.5);
    b[i] = Vec4<T>{x, y, z, T(m / double(n))};
  }
  return b;
}

int samples_for(std::int64_t n, int repeat) { return n >= (1 << 19) ? std::min(repeat, 5) : repeat; }

// Median over samples of the slowest rank's time per call; every sample starts after a barrier.
double time_calls(comm::Context& ctx, int samples, int calls, const std::function<void()>& call,
                  const std::function<void()>& wait) {
  call();  // warm-up
  wait();
  std::vector<double> t;
  for (int s = 0; s < samples; ++s) {
    comm::barrier(ctx);
    HostTimer timer;
    for (int c = 0; c < calls; ++c) call();
    wait();
    t.push_back(comm::allreduce(ctx, timer.seconds() / calls, comm::Op::max));
  }
  return median(t);
}

BenchRow rate_row(std::string name, std::int64_t n, double seconds, double limit, std::string note) {
  const double rate = static_cast<double>(n) * static_cast<double>(n) / seconds;
  return {std::move(name), size_text(n), seconds, rate / 1e9, kUnit, limit > 0 ? rate / limit : 0.0, std::move(note)};
}

// The ring on every rank: one force pass over N bodies through `transport`, timed per pass.
template <class T>
double time_ring(comm::Context& ctx, comm::Transport& transport, Backend backend, std::int64_t n, int samples,
                 int cpu_threads) {
  const Range r = block_range(n, ctx.size(), ctx.rank());
  EngineOptions o;
  o.eps = kEps;
  o.offset = r.begin;
  o.cpu_threads = cpu_threads;
  std::unique_ptr<Engine<T>> engine;
  comm::agree(ctx, [&] {
    engine = backend == Backend::cuda ? make_cuda_engine<T>(r.count, block_range(n, ctx.size(), 0).count, o)
                                      : make_cpu_engine<T>(r.count, o);
  });
  HostBodies<T> b;
  b.pos_mass = random_bodies<T>(n, 7);
  b.pos_mass = std::vector<Vec4<T>>(b.pos_mass.begin() + r.begin, b.pos_mass.begin() + r.end());
  b.vel.assign(b.pos_mass.size(), Vec4<T>{0, 0, 0, 0});
  b.acc = b.vel;
  upload_bodies(ctx, *engine, b);
  RingForces<T> ring(ctx, transport, n);
  return time_calls(
      ctx, samples, 1, [&] { ring.run(*engine, BlockPass<T>{}); }, [&] { engine->synchronize(); });
}

#if defined(TESSERA_HAVE_CUDA)
// Repetitions so one sample of `calls` back-to-back calls lasts a few milliseconds or more.
int calls_for(std::int64_t n) {
  const double pairs = static_cast<double>(n) * static_cast<double>(n);
  return static_cast<int>(std::clamp(1e10 / pairs, 1.0, 1000.0));
}

// One GPU: forces of n bodies on themselves with `config`, seconds per call.
template <class T>
double time_kernel(comm::Context& ctx, std::int64_t n, const KernelConfig& config, int samples, bool graph_step,
                   Masses masses = Masses::equal) {
  DeviceBuffer<Vec4<T>> x(n), v(n), a(n), partials(partials_needed(config, n));
  const std::vector<Vec4<T>> bodies = random_bodies<T>(n, 11, masses);
  x.upload(bodies);
  fill_device_bytes(v.data(), 0, v.bytes());
  fill_device_bytes(a.data(), 0, a.bytes());
  Stream stream;
  ForceArgs<T> f = self_pass<T>(x.data(), n, a.data(), softening2<T>(kEps));
  f.partials = partials.data();
  f.partials_capacity = static_cast<std::int64_t>(partials.size());
  f.common_mass = common_mass<T>(ctx, bodies);  // as a run finds it
  const int calls = calls_for(n);
  if (!graph_step)
    return time_calls(
        ctx, samples, calls, [&] { forces_cuda<T>(f, config, stream); }, [&] { stream.synchronize(); });

  // A whole KDK step (kick + drift, forces with the closing kick), `steps` of them in one graph.
  const T dt = T(1e-6);
  f.vel = v.data();
  f.kick_dt = dt / 2;
  const int steps = std::max(1, std::min(calls, 100));
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  TESSERA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int s = 0; s < steps; ++s) {
    kick_drift_cuda<T>(x.data(), v.data(), a.data(), n, dt / 2, dt, stream);
    forces_cuda<T>(f, config, stream);
  }
  TESSERA_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  TESSERA_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const double per_graph = time_calls(
      ctx, samples, std::max(1, calls / steps), [&] { TESSERA_CUDA_CHECK(cudaGraphLaunch(exec, stream)); },
      [&] { stream.synchronize(); });
  TESSERA_CUDA_CHECK(cudaGraphExecDestroy(exec));
  TESSERA_CUDA_CHECK(cudaGraphDestroy(graph));
  return per_graph / steps;
}

// "; the default at this N" when `c` is the shape runs use at n (kernel auto), for row notes.
std::string default_note(const KernelConfig& c, std::int64_t n, int sm) {
  return resolve_config({}, n, n, sm, false).describe() == c.describe() ? "; the default at this N" : "";
}

// The shapes tried besides the automatic one (bodies per thread, group, split).
std::vector<KernelConfig> sweep_configs(std::int64_t n) {
  std::vector<KernelConfig> out;
  const bool large = n >= (1 << 18);
  for (int b : {1, 2, 4})
    for (int g : {32, 64, 128, 256})
      for (int s : {1, 2, 4, 8, 16, 32}) {
        KernelConfig c{KernelVariant::tiled, g, s, b};
        if (!check_config(c, false).empty()) continue;
        if (large && (b == 1 || s > 1 || g < 128)) continue;  // large N: only the few that can win
        if (n / s < 128 || (n + g * b - 1) / (g * b) < 8) continue;
        out.push_back(c);
      }
  return out;
}

// TESSERA_NBODY_KERNELS: shapes to compare (comma-separated, in parse_kernel_config's words,
// e.g. "split:b2:u16:m16,tiled:g256:s1:b4"; "split-all" stands for every compiled
// single-precision split shape with its split chosen per N).
std::vector<KernelConfig> candidate_configs(const std::vector<std::string>& items) {
  std::vector<KernelConfig> out;
  for (const std::string& item : items) {
    if (item == "split-all") {
      for (const SplitShape& s : split_shapes())
        if (!s.double_precision)
          out.push_back(KernelConfig{KernelVariant::split, s.threads, 0, s.bodies_per_thread, s.unroll, s.min_blocks});
    } else {
      try {
        out.push_back(parse_kernel_config(item));
      } catch (const InputError& e) {
        throw InputError(fmt::format("TESSERA_NBODY_KERNELS: {}", e.what()));
      }
    }
  }
  return out;
}

// TESSERA_NBODY_SIZES: the N of the comparison (comma-separated; default 4096, 256K, 1M).
std::vector<std::int64_t> candidate_sizes() {
  const std::vector<long long> sizes = *env::get_integers("TESSERA_NBODY_SIZES");
  return std::vector<std::int64_t>(sizes.begin(), sizes.end());
}

// The comparison run: the automatic shape, the seeds' atomic kernel up to 256K and every
// candidate, each forces-only on N bodies (single precision), one row each.
void bench_candidates(comm::Context& ctx, const BenchOptions& o, double limit, const std::vector<KernelConfig>& list,
                      const std::vector<std::int64_t>& sizes, BenchReport& report) {
  const int sm = device_sm_count();
  for (std::int64_t n : sizes) {
    const int samples = samples_for(n, o.repeat);
    const KernelConfig autoc = resolve_config({KernelVariant::tiled}, n, n, sm, false);
    report.rows.push_back(rate_row("tiled (auto)", n, time_kernel<float>(ctx, n, autoc, samples, false), limit,
                                   autoc.describe() + default_note(autoc, n, sm)));
    if (n <= 262144) {
      const KernelConfig c = resolve_config({KernelVariant::seed_atomic}, n, n, sm, false);
      report.rows.push_back(rate_row("seed-atomic", n, time_kernel<float>(ctx, n, c, samples, false), limit,
                                     c.describe() + " (atomics: not deterministic)"));
    }
    for (const KernelConfig& requested : list) {
      KernelConfig c;
      try {
        c = resolve_config(requested, n, n, sm, false);
      } catch (const std::invalid_argument& e) {
        throw InputError(fmt::format("TESSERA_NBODY_KERNELS: {}", e.what()));
      }
      std::string note = fmt::format("candidate, equal masses; workspace {} MiB{}", partials_needed(c, n) * sizeof(Vec4<float>) >> 20,
                                     default_note(c, n, sm));
      if (c.variant == KernelVariant::split) {
        const SplitKernelInfo info = split_kernel_info<float>(c, true);
        note += fmt::format("; {} registers, {} blocks per SM", info.registers, info.resident_blocks);
      }
      report.rows.push_back(rate_row(c.describe(), n, time_kernel<float>(ctx, n, c, samples, false), limit, note));
    }
  }
}

void bench_gpu_kernels(comm::Context& ctx, const BenchOptions& o, double limit, BenchReport& report) {
  const int sm = device_sm_count();
  const std::vector<std::int64_t> sizes =
      o.quick ? std::vector<std::int64_t>{4096, 16384} : std::vector<std::int64_t>{4096, 16384, 65536, 262144, 1048576};
  for (std::int64_t n : sizes) {
    const int samples = samples_for(n, o.repeat);
    const KernelConfig autoc = resolve_config({KernelVariant::tiled}, n, n, sm, false);
    const double t_auto = time_kernel<float>(ctx, n, autoc, samples, false);
    report.rows.push_back(rate_row("tiled (auto)", n, t_auto, limit, autoc.describe() + default_note(autoc, n, sm)));
    const KernelConfig splitc = resolve_config({KernelVariant::split}, n, n, sm, false);
    report.rows.push_back(rate_row("split (auto)", n, time_kernel<float>(ctx, n, splitc, samples, false), limit,
                                   splitc.describe() + default_note(splitc, n, sm) + "; equal masses"));
    if (n >= 65536)
      report.rows.push_back(rate_row("split (auto), masses differ", n,
                                     time_kernel<float>(ctx, n, splitc, samples, false, Masses::differ), limit,
                                     splitc.describe() + "; every mass read (13 instructions per interaction)"));
    if (!o.quick) {
      double best = t_auto;
      KernelConfig best_c = autoc;
      for (const KernelConfig& c : sweep_configs(n)) {
        const double t = time_kernel<float>(ctx, n, c, std::min(samples, 3), false);
        if (t < best) best = t, best_c = c;
      }
      report.rows.push_back(rate_row("tiled (best of sweep)", n, best, limit, best_c.describe()));
    }
    if (n <= 65536)
      report.rows.push_back(rate_row("tiled step (KDK, graph)", n, time_kernel<float>(ctx, n, autoc, samples, true),
                                     limit, "kick+drift and forces+kick per step, 100 steps per CUDA graph"));
    if (n <= 65536) {
      const KernelConfig c = resolve_config({KernelVariant::seed_naive}, n, n, sm, false);
      report.rows.push_back(rate_row("seed-naive", n, time_kernel<float>(ctx, n, c, std::min(samples, 5), false),
                                     limit, c.describe()));
    }
    if (n <= 262144) {
      const KernelConfig c = resolve_config({KernelVariant::seed_atomic}, n, n, sm, false);
      report.rows.push_back(rate_row("seed-atomic", n, time_kernel<float>(ctx, n, c, std::min(samples, 5), false),
                                     limit, c.describe()));
    }
    if (n == 16384 || (n == 65536 && !o.quick)) {
      const KernelConfig c = resolve_config({KernelVariant::tiled}, n, n, sm, true);
      report.rows.push_back(rate_row("tiled fp64", n, time_kernel<double>(ctx, n, c, std::min(samples, 5), false), 0,
                                     c.describe() + " (double; fraction not of the FP32 limit)"));
    }
  }
}
#endif

void bench_ring(comm::Context& ctx, const BenchOptions& o, Backend backend, double limit, int cpu_threads,
                BenchReport& report) {
  const std::int64_t n = backend == Backend::cuda ? (o.quick ? 65536 : 1048576) : (o.quick ? 4096 : 16384);
  const int samples = samples_for(n, o.repeat);
  const int p = ctx.size();
  std::vector<std::string> kinds;
  if (backend == Backend::cpu)
    kinds = {"auto"};
  else if (o.transport == "auto")
    kinds = {"staged", "mpi", "nccl"};
  else
    kinds = {o.transport};
  // One rank alone on the whole problem: the reference for the parallel efficiency.
  double t1 = 0;
  std::string ref_kernel;  // the engine's default kernel, as a run gets it
  {
    const Range r{0, n};
    EngineOptions eo;
    eo.eps = kEps;
    eo.cpu_threads = cpu_threads;
    std::unique_ptr<Engine<float>> e;
    comm::agree(ctx, [&] {
      e = backend == Backend::cuda ? make_cuda_engine<float>(r.count, n, eo) : make_cpu_engine<float>(r.count, eo);
    });
    HostBodies<float> b;
    b.pos_mass = random_bodies<float>(n, 7);
    b.vel.assign(b.pos_mass.size(), Vec4<float>{0, 0, 0, 0});
    b.acc = b.vel;
    upload_bodies(ctx, *e, b);
    ref_kernel = e->describe();
    t1 = time_calls(
        ctx, samples, 1, [&] { e->interact(e->bodies(), n, 0, BlockPass<float>{}); }, [&] { e->synchronize(); });
  }
  report.rows.push_back(rate_row("ring reference (1 rank alone)", n, t1, limit, "each rank on the whole N; " + ref_kernel));
  for (const auto& kind : kinds) {
    std::unique_ptr<comm::Transport> tr;
    try {
      tr = comm::make_transport(ctx, backend, kind).transport;
    } catch (const InputError& e) {
      log::info("skipping transport {}: {}", kind, e.what());
      continue;
    }
    const double tp = time_ring<float>(ctx, *tr, backend, n, samples, cpu_threads);
    const double per_rank = static_cast<double>(n) * static_cast<double>(n) / tp / p;
    report.rows.push_back({fmt::format("ring/{} P={}", comm::to_string(tr->kind()), p), size_text(n), tp,
                           per_rank / 1e9, "G interactions/s per rank", limit > 0 ? per_rank / limit : 0.0,
                           fmt::format("parallel efficiency {:.1f}% (t1 / (P tP))", 100.0 * t1 / (p * tp))});
  }
}

}  // namespace

BenchReport run_nbody_bench(comm::Context& ctx, const BenchOptions& o) {
  Backend mine = Backend::cpu;
  comm::agree(ctx, [&] { mine = resolve_backend(parse_backend(o.backend, "--backend")); });
  const Backend backend =
      comm::allreduce(ctx, mine == Backend::cuda ? 1 : 0, comm::Op::min) == 1 ? Backend::cuda : Backend::cpu;
  const int cpu_threads = comm::cpu_threads_per_rank(ctx);
  BenchReport report;
  report.title = fmt::format("tessera bench nbody: {} rank(s), backend {}", ctx.size(), to_string(backend));
  double limit = 0;
#if defined(TESSERA_HAVE_CUDA)
  if (backend == Backend::cuda) {
    const int sm = device_sm_count();
    const double clock_hz = device_clock_khz() * 1e3;
    limit = fp32_issue_limit(sm, clock_hz);
    const auto dev = current_device_info();
    report.device = fmt::format("{} x{} ({} SMs, {:.0f} MHz peak)", dev ? dev->name : "GPU", ctx.size(), sm, clock_hz / 1e6);
    report.limit = fmt::format(
        "FP32 issue rate: {} SMs x 4 schedulers x 32 lanes x {:.0f} MHz / {} instructions per interaction = {:.3f} T "
        "interactions/s per GPU",
        sm, clock_hz / 1e6, kInstructionsPerInteraction, limit / 1e12);
    if (const auto kernels = env::get_words("TESSERA_NBODY_KERNELS")) {
      // The kernel comparison alone (no sweep, no ring): see candidate_configs.
      report.title += ", kernel comparison (TESSERA_NBODY_KERNELS)";
      bench_candidates(ctx, o, limit, candidate_configs(*kernels), candidate_sizes(), report);
      return report;
    }
    bench_gpu_kernels(ctx, o, limit, report);
  }
#endif
  if (backend == Backend::cpu) {
    report.device = fmt::format("CPU, {} OpenMP thread(s) per rank", cpu_threads);
    for (std::int64_t n : o.quick ? std::vector<std::int64_t>{1024} : std::vector<std::int64_t>{1024, 4096}) {
      std::vector<Vec4<float>> x = random_bodies<float>(n, 11), a(static_cast<std::size_t>(n));
      const ForceArgs<float> f = self_pass<float>(x.data(), n, a.data(), softening2<float>(kEps));
      const double t = time_calls(
          ctx, std::min(o.repeat, 5), 1, [&] { forces_cpu<float>(f, cpu_threads); }, [] {});
      report.rows.push_back(rate_row("cpu (OpenMP)", n, t, 0, fmt::format("{} thread(s)", cpu_threads)));
    }
  }
  bench_ring(ctx, o, backend, limit, cpu_threads, report);
  return report;
}

}  // namespace tessera::nbody
