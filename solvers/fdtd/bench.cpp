#include "solvers/fdtd/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "comm/cart.hpp"
#include "comm/collectives.hpp"
#include "comm/transport.hpp"
#include "core/device_info.hpp"
#include "core/env.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "io/checksum.hpp"
#include "solvers/bench_timing.hpp"
#include "solvers/fdtd/cuda/seed_variants.hpp"
#include "solvers/fdtd/stepper.hpp"

namespace tessera::fdtd {
namespace {

// A split Yee step moves at least 72 bytes per cell: E and H each read 6 and write 3 float32
// values. The fused sweep reads and writes each of the six components once: 48 bytes, plus
// the material index (1 byte) where materials vary.
constexpr double kBytesPerCell = 72.0;
constexpr double kFusedBytesPerCell = 48.0;
constexpr int kTrials = 3;
// The blocked sweep (issue 36): k steps per pass read and write the fields once, 48/k bytes
// per cell-update (+1/k for the material index), plus the re-reads of each tile's halo where
// they miss L2: a 32 x 32 tile outputs (32 - 2k)^2 columns.
constexpr int kBlockedSteps[] = {2, 3, 4};
double blocked_halo_factor(int k) { return 32.0 * 32.0 / ((32.0 - 2 * k) * (32.0 - 2 * k)); }
// `bytes`: 48, or 49 with the material index (read, like the fields' 24, once per pass).
std::string blocked_note(int k, double bytes) {
  const double reads = bytes - 24;
  return fmt::format("{} steps per pass: {:.1f} B/cell-update model ({:.1f} if every halo re-read missed L2)", k,
                     bytes / k, (reads * blocked_halo_factor(k) + 24) / k);
}

Model bench_model(std::int64_t n, bool cpml, bool materials, Sweep sweep = Sweep::split, int block_steps = 3) {
  Model m;
  m.sweep = sweep;
  m.block_steps = block_steps;
  m.cells = {n, n, n};
  m.cell_size = {1e-3, 1e-3, 1e-3};
  m.dt = 0.99 * courant_limit(m.cell_size);
  for (auto& axis : m.faces) axis = {cpml ? FaceKind::cpml : FaceKind::pec, cpml ? FaceKind::cpml : FaceKind::pec};
  m.cpml.thickness = static_cast<int>(std::min<std::int64_t>(10, (n - 1) / 2));
  m.materials = {{"vacuum", 1, 0, false, {}}, {"pec", 1, 0, true, {}}, {"dielectric", 4, 0.01, false, {}}};
  if (materials) {
    Shape s;
    s.kind = ShapeKind::sphere;
    s.material = 2;
    s.center = {0.5 * n * 1e-3, 0.5 * n * 1e-3, 0.5 * n * 1e-3};
    s.radius = 0.25 * n * 1e-3;
    m.shapes.push_back(s);
  }
  return m;
}

std::unique_ptr<Stepper> single_rank_stepper(const Model& m, Backend backend) {
  const LocalDomain d = whole_domain(m.cells, {false, false, false});
  return std::make_unique<Stepper>(m, d, make_engine(backend, d, h_coefficients(m)), make_local_ghosts(d));
}

// Seconds per call of `body` on this rank alone (median of trials of `repeat` calls).
template <class F>
double time_local(Engine& e, int repeat, F&& body) {
  body();
  body();
  e.synchronize();
  std::vector<double> trials;
  for (int t = 0; t < kTrials; ++t) {
    HostTimer timer;
    for (int r = 0; r < repeat; ++r) body();
    e.synchronize();
    trials.push_back(timer.seconds() / repeat);
  }
  return median(trials);
}

// The job's seconds per call: every rank times between barriers, the slowest counts.
template <class F>
double time_collective(comm::Context& ctx, Engine& e, int repeat, F&& body) {
  body();
  body();
  e.synchronize();
  std::vector<double> trials;
  for (int t = 0; t < kTrials; ++t) {
    comm::barrier(ctx);
    HostTimer timer;
    for (int r = 0; r < repeat; ++r) body();
    e.synchronize();
    trials.push_back(comm::allreduce(ctx, timer.seconds() / repeat, comm::Op::max));
  }
  return median(trials);
}

// Order-sensitive hash of every interior value of the six components.
std::uint64_t field_hash(Engine& e) {
  std::vector<float> host(static_cast<std::size_t>(e.layout().elements()));
  std::uint64_t h = 0;
  const auto& n = e.domain().n;
  for (int c = 0; c < kComponents; ++c) {
    e.download(c, host);
    std::uint64_t i = 0;
    for (std::int64_t z = 0; z < n[2]; ++z)
      for (std::int64_t y = 0; y < n[1]; ++y)
        for (std::int64_t x = 0; x < n[0]; ++x) {
          std::uint32_t bits;
          std::memcpy(&bits, &host[static_cast<std::size_t>(e.layout().at(x, y, z))], 4);
          h += io::checksum_term((std::uint64_t(c) << 40) + i++, bits);
        }
  }
  return h;
}

double copy_bandwidth(Backend backend, bool quick) {
  if (backend == Backend::cuda) return device_copy_bandwidth(quick ? (std::size_t(1) << 28) : (std::size_t(1) << 30), 10);
  // Host: an OpenMP copy of 256 MiB (a single memcpy would measure one core).
  const std::size_t n = (quick ? (std::size_t(1) << 24) : (std::size_t(1) << 26));
  std::vector<float> a(n, 1.0f), b(n, 0.0f);
  std::vector<double> times;
  for (int r = 0; r < 6; ++r) {
    HostTimer t;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) b[static_cast<std::size_t>(i)] = a[static_cast<std::size_t>(i)];
    if (r > 0) times.push_back(t.seconds());
  }
  return 2.0 * double(n) * sizeof(float) / median(times);
}

std::string cube(std::int64_t n) { return fmt::format("{}^3", n); }

struct BenchRun {
  comm::Context& ctx;
  Backend backend;
  const BenchOptions& o;
  double bandwidth;  // the measured copy bandwidth, bytes/s
  BenchReport& report;

  // `bytes_per_cell`: the variant's byte model; the row's fraction is of the rate it allows.
  void row(std::string name, std::int64_t cells_per_rank, double seconds, std::string note, const std::string& size,
           double bytes_per_cell = kBytesPerCell) {
    const double rate = double(cells_per_rank) / seconds;
    report.rows.push_back({std::move(name), size, seconds, rate / 1e9, "G cell-updates/s",
                           rate * bytes_per_cell / bandwidth, std::move(note)});
  }
};

constexpr int kMaxBenchBlocked = 4;

// Full solver steps under the blocked sweep, k = 2, 3, 4 (a timed call: k steps, one pass),
// beside the fused step's `t_fused` seconds.
void bench_blocked_steps(BenchRun& b, std::int64_t n, bool materials, double t_fused) {
  const int repeat = std::max(1, b.o.repeat);
  const double bytes = kFusedBytesPerCell + (materials ? 1 : 0);
  for (const int k : kBlockedSteps) {
    auto s = single_rank_stepper(bench_model(n, false, materials, Sweep::blocked, k), b.backend);
    const double t = comm::allreduce(b.ctx, time_local(s->engine(), repeat, [&] {
                                       for (int q = 0; q < k; ++q) s->step();
                                     }) / k,
                                     comm::Op::max);
    b.row(fmt::format("step pec {} blocked k={}", materials ? "materials" : "vacuum", k), n * n * n, t,
          fmt::format("{}; {:.2f}x the fused step", blocked_note(k, bytes), t_fused / t), cube(n), bytes / k);
  }
}

// Every face periodic (issue 36's fourth case), one rank: the fused step and the blocked
// sweep (which wraps each axis inside its pass); the split reference and the fused step wrap
// through a halo exchange of the rank with itself. Only where the bench runs on one rank.
void bench_periodic_steps(BenchRun& b, std::int64_t n) {
  if (b.ctx.size() != 1) return;
  const int repeat = std::max(1, b.o.repeat);
  Model m = bench_model(n, false, false);
  for (auto& axis : m.faces) axis = {FaceKind::periodic, FaceKind::periodic};
  const auto transport = comm::make_transport(b.ctx, b.backend, "staged").transport;
  comm::CartDecomposition decomp(b.ctx, m.cells, {1, 1, 1}, {true, true, true});
  const LocalDomain d = local_domain(decomp);
  double t_fused = 0;
  for (const int k : {1, 2, 3, 4}) {
    m.sweep = k == 1 ? Sweep::fused : Sweep::blocked;
    m.block_steps = std::max(k, 2);
    auto engine = make_engine(b.backend, d, h_coefficients(m));
    auto ghosts = make_halo_ghosts(decomp, *transport, engine->layout());
    Stepper s(m, d, std::move(engine), std::move(ghosts));
    const double t = time_local(s.engine(), repeat, [&] {
                       for (int q = 0; q < k; ++q) s.step();
                     }) / k;
    if (k == 1) {
      t_fused = t;
      b.row("step periodic vacuum fused", n * n * n, t, "every face periodic, fused sweep", cube(n),
            kFusedBytesPerCell);
    } else {
      b.row(fmt::format("step periodic vacuum blocked k={}", k), n * n * n, t,
            fmt::format("{}; {:.2f}x the fused step", blocked_note(k, kFusedBytesPerCell), t_fused / t), cube(n),
            kFusedBytesPerCell / k);
    }
  }
}

void bench_size(BenchRun& b, std::int64_t n) {
  const int repeat = std::max(1, b.o.repeat);
  const std::int64_t cells = n * n * n;
  const auto single = [&](double local) { return comm::allreduce(b.ctx, local, comm::Op::max); };

  double t_pec = 0;
  {
    auto s = single_rank_stepper(bench_model(n, false, false), b.backend);
    t_pec = single(time_local(s->engine(), repeat, [&] { s->step(); }));
    b.row("step pec vacuum", cells, t_pec, "full solver step, uniform material, split sweep", cube(n));
  }
  if (b.backend == Backend::cuda) {
    auto s = single_rank_stepper(bench_model(n, false, false, Sweep::fused), b.backend);
    const double t = single(time_local(s->engine(), repeat, [&] { s->step(); }));
    b.row("step pec vacuum fused", cells, t,
          fmt::format("fused sweep ({:.0f} B/cell model), {:.2f}x the split step", kFusedBytesPerCell, t_pec / t), cube(n),
          kFusedBytesPerCell);
    bench_blocked_steps(b, n, false, t);
    bench_periodic_steps(b, n);
  }
  // Running DFTs on the plane z = n/2, 100 frequencies, every step (issue 22's budget: at most
  // 10% over the step at 512^3): one component ([[fdtd.dft]]), and a flux plane (two E on one
  // layer and two H on two, so about 6 planes of accumulators).
  {
    Model m = bench_model(n, false, false);
    Spectrum sp;
    for (int i = 0; i < 100; ++i) sp.frequencies.push_back(1e9 * (1 + i));  // below the Nyquist 1/(2 dt) = 262 GHz
    m.dfts.push_back({"plane", {kEx}, {{0, 0, n / 2}, {n, n, n / 2 + 1}}, sp});
    auto s = single_rank_stepper(m, b.backend);
    const double t = single(time_local(s->engine(), repeat, [&] { s->step(); }));
    b.row("step + dft plane 100 f", cells, t,
          fmt::format("Ex on {}^2 cells, float64; overhead {:+.1f}% over pec vacuum", n, 100 * (t / t_pec - 1)), cube(n));
    m.dfts.clear();
    FluxSpec f;
    f.name = "flux";
    f.layer = n / 2;
    f.region = {{0, 0, n / 2}, {n, n, n / 2 + 1}};
    f.spectrum = sp;
    m.fluxes.push_back(f);
    auto sf = single_rank_stepper(m, b.backend);
    const double tf = single(time_local(sf->engine(), repeat, [&] { sf->step(); }));
    b.row("step + flux plane 100 f", cells, tf,
          fmt::format("Ex Ey Hx Hy on {}^2 cells (H on 2 layers); overhead {:+.1f}% over pec vacuum", n,
                      100 * (tf / t_pec - 1)),
          cube(n));
  }
  {
    auto s = single_rank_stepper(bench_model(n, true, false), b.backend);
    const double t = single(time_local(s->engine(), repeat, [&] { s->step(); }));
    b.row(fmt::format("step cpml {} (6 faces)", s->model().cpml.thickness), cells, t,
          fmt::format("CPML overhead {:+.1f}% over pec", 100 * (t / t_pec - 1)), cube(n));
    if (b.backend == Backend::cuda) {
      // The fused sweep with the CPML corrections inside it (one rank: no neighbour's slab).
      auto f = single_rank_stepper(bench_model(n, true, false, Sweep::fused), b.backend);
      const double tf = single(time_local(f->engine(), repeat, [&] { f->step(); }));
      b.row(fmt::format("step cpml {} (6 faces) fused", f->model().cpml.thickness), cells, tf,
            fmt::format("CPML inside the fused sweep, {:.2f}x the split cpml step; overhead {:+.1f}% over pec split",
                        t / tf, 100 * (tf / t_pec - 1)),
            cube(n));
      // The blocked sweep with the slabs' corrections inside the pass (a timed call: k steps,
      // one pass), k = 2, 3, 4.
      for (int k = 2; k <= 4; ++k) {
        auto bl = single_rank_stepper(bench_model(n, true, false, Sweep::blocked, k), b.backend);
        const double tb = single(time_local(bl->engine(), repeat, [&] {
                            for (int q = 0; q < k; ++q) bl->step();
                          })) / k;
        b.row(fmt::format("step cpml {} (6 faces) blocked k={}", bl->model().cpml.thickness, k), cells, tb,
              fmt::format("CPML inside the pass; {:.2f}x the fused cpml step", tf / tb), cube(n));
      }
    }
  }
  // A Drude metal in every cell (f_p 20 GHz, gamma 1 GHz: stable at courant 0.99 with 1 mm
  // cells): the E update also reads and writes J of each component (issue 22's budget: 1.5x
  // the vacuum step at 512^3).
  {
    Model m = bench_model(n, false, false);
    const double two_pi = 2 * 3.14159265358979323846;
    m.materials.push_back({"drude", 1, 0, false, {{std::pow(two_pi * 20e9, 2), 0, two_pi * 1e9}}});
    m.background = static_cast<int>(m.materials.size()) - 1;
    auto s = single_rank_stepper(m, b.backend);
    const double t = single(time_local(s->engine(), repeat, [&] { s->step(); }));
    b.row("step drude everywhere", cells, t,
          fmt::format("one Drude pole in every cell ({:.0f} B/cell model), {:.2f}x the vacuum step", kBytesPerCell + 24,
                      t / t_pec),
          cube(n), kBytesPerCell + 24);
  }
  auto s = single_rank_stepper(bench_model(n, false, true), b.backend);
  Engine& e = s->engine();
  const double t_mat = single(time_local(e, repeat, [&] { s->step(); }));
  b.row("step pec materials", cells, t_mat, "full solver step, per-cell material index, split sweep", cube(n));
  if (b.backend != Backend::cuda) return;
  try {  // before e's own second copy exists: three copies of the fields at a time, not four
    double t_fused = 0;
    {
      auto f = single_rank_stepper(bench_model(n, false, true, Sweep::fused), b.backend);
      t_fused = single(time_local(f->engine(), repeat, [&] { f->step(); }));
    }
    b.row("step pec materials fused", cells, t_fused,
          fmt::format("fused sweep ({:.0f} B/cell model), {:.2f}x the split step", kFusedBytesPerCell + 1,
                      t_mat / t_fused),
          cube(n), kFusedBytesPerCell + 1);
    bench_blocked_steps(b, n, true, t_fused);
  } catch (const InputError& err) {
    log::info("bench fdtd: no fused step at {}^3: {}", n, err.what());
  }
  std::string why;
  const bool fusable = e.enable_fused(why);

  // Bulk H + E kernels only, own mapping against the seed's, all reading the material index,
  // each from the same random fields; the fields must agree bit for bit afterwards.
  const Box all = e.domain().local();
  const std::uint64_t seed = 20240611;
  const auto own = [&] {
    e.update_h(all);
    e.update_e(all);
  };
  e.fill_random(seed);
  const double t_own = single(time_local(e, repeat, own));
  const std::uint64_t steps_done = 2 + std::uint64_t(kTrials) * std::uint64_t(repeat);
  const std::uint64_t reference = field_hash(e);
  b.row("tessera columns", cells, t_own, "bulk H+E kernels (reference of the bitwise check)", cube(n));
  const auto variants = seed_variants(e.domain().n);
  for (std::size_t v = 0; v < variants.size(); ++v) {
    e.fill_random(seed);
    const double t = single(time_local(e, repeat, [&] { run_seed_variant(e, static_cast<int>(v)); }));
    const bool same = field_hash(e) == reference;
    b.row(variants[v].name, cells, t,
          fmt::format("{}; {} steps {}", variants[v].launch, steps_done, same ? "bitwise equal" : "DIFFER FROM tessera"),
          cube(n));
  }
  if (fusable) {
    e.fill_random(seed);
    const double t = single(time_local(e, repeat, [&] { e.update_fused(); }));
    const bool same = field_hash(e) == reference;
    b.row("tessera fused sweep", cells, t,
          fmt::format("H+E in one pass, {:.0f} B/cell model; {} steps {}", kFusedBytesPerCell + 1, steps_done,
                      same ? "bitwise equal" : "DIFFER FROM tessera"),
          cube(n), kFusedBytesPerCell + 1);
  } else {
    log::info("bench fdtd: no fused sweep at {}^3: {}", n, why);
  }
  if (!e.enable_blocked(kMaxBenchBlocked, why)) {
    log::info("bench fdtd: no blocked sweep at {}^3: {}", n, why);
    return;
  }
  // The blocked sweep's kernel alone, k steps a call, and its bits against k split steps
  // with the PEC walls' zeroing (what a pass does after each step).
  const auto blocked_rows = [&](const std::string& tile) {
    for (const int k : kBlockedSteps) {
      e.fill_random(seed);
      const double t = single(time_local(e, repeat, [&] { e.update_blocked(k); })) / k;
      e.fill_random(seed);
      e.update_blocked(k);
      const std::uint64_t blocked = field_hash(e);
      e.fill_random(seed);
      for (int q = 0; q < k; ++q) {
        own();
        for (int a = 0; a < 3; ++a) e.zero_tangential_e(a);
      }
      const bool same = field_hash(e) == blocked;
      b.row(fmt::format("tessera blocked sweep k={}{}", k, tile), cells, t,
            fmt::format("{}; {} steps {}", blocked_note(k, kFusedBytesPerCell + 1), k,
                        same ? "bitwise equal to the split kernels" : "DIFFER FROM tessera"),
            cube(n), (kFusedBytesPerCell + 1) / k);
    }
  };
  blocked_rows("");
  // The other tile shape (32 x 16: two blocks per SM, a smaller share of inner columns:
  // (32 - 2k)(16 - 2k) of 512), unless TESSERA_FDTD_BLOCKED_TILE already chose one for the
  // whole run.
  if (!env::get_integers("TESSERA_FDTD_BLOCKED_TILE")) {
    if (e.enable_blocked(kMaxBenchBlocked, why, BlockedTiling{.tile_y = 16})) blocked_rows(" tile 32x16");
    e.enable_blocked(kMaxBenchBlocked, why);  // the default shape again
  }
}

void bench_weak_blocked(BenchRun& b, std::int64_t n, comm::Transport& tr);

void bench_weak(BenchRun& b, std::int64_t n) {
  const int repeat = std::max(1, b.o.repeat);
  const int p = b.ctx.size();
  // Baselines: one rank alone on the same local grid, no exchange (pec faces), split and (on
  // the GPU) fused.
  const std::vector<Sweep> sweeps =
      b.backend == Backend::cuda ? std::vector<Sweep>{Sweep::split, Sweep::fused} : std::vector<Sweep>{Sweep::split};
  std::vector<double> t1;
  for (const Sweep sweep : sweeps) {
    auto s = single_rank_stepper(bench_model(n, false, false, sweep), b.backend);
    t1.push_back(comm::allreduce(b.ctx, time_local(s->engine(), repeat, [&] { s->step(); }), comm::Op::max));
  }
  std::vector<std::string> kinds;
  if (b.backend == Backend::cpu) kinds = {"auto"};
  else if (b.o.transport == "auto") kinds = {"staged", "mpi", "nccl"};
  else kinds = {b.o.transport};
  // The rank grid a run picks (comm::resolve_dims), so that every rank holds n^3 of a periodic
  // grid; and, where that grid cuts x or y too, z alone (1x1xP: two faces a rank, each a
  // contiguous plane, which the fused step's ghosts send whole).
  std::vector<std::array<int, 3>> grids;
  {
    comm::CartDecomposition probe(b.ctx, {p, p, p}, {0, 0, 0}, {true, true, true});
    grids.push_back(probe.dims());
    if (p > 1 && grids[0] != std::array<int, 3>{1, 1, p}) grids.push_back({1, 1, p});
  }
  for (const std::string& kind : kinds) {
    std::unique_ptr<comm::Transport> tr;
    try {
      tr = comm::make_transport(b.ctx, b.backend, kind).transport;
    } catch (const InputError& err) {
      log::info("bench fdtd: skipping transport {}: {}", kind, err.what());
      continue;
    }
    for (std::size_t g = 0; g < grids.size(); ++g) {
      const std::array<int, 3>& dims = grids[g];
      Model m = bench_model(n, false, false);
      m.cells = {n * dims[0], n * dims[1], n * dims[2]};
      for (auto& axis : m.faces) axis = {FaceKind::periodic, FaceKind::periodic};
      comm::CartDecomposition decomp(b.ctx, m.cells, dims, {true, true, true});
      const LocalDomain d = local_domain(decomp);
      for (std::size_t v = 0; v < sweeps.size(); ++v) {
        const bool fused = sweeps[v] == Sweep::fused;
        m.sweep = sweeps[v];
        auto engine = make_engine(b.backend, d, h_coefficients(m));
        auto ghosts = make_halo_ghosts(decomp, *tr, engine->layout());
        Stepper s(m, d, std::move(engine), std::move(ghosts));
        const double t = time_collective(b.ctx, s.engine(), repeat, [&] { s.step(); });
        const std::string name = fmt::format("weak {} P={}{}{}", comm::to_string(tr->kind()), p,
                                             fused ? " fused" : "", g > 0 ? " z cut" : "");
        b.row(name, n * n * n, t,
              fmt::format("periodic {}x{}x{} ranks, {}; efficiency {:.1f}% of one rank alone ({:.3f} ms)", dims[0],
                          dims[1], dims[2],
                          fused ? (dims[0] == 1 && dims[1] == 1 ? "one exchange (whole E and H planes), then the fused sweep"
                                                                 : "one exchange (E with edges, H), then the fused sweep")
                                : "halo overlapped",
                          100 * t1[v] / t, 1e3 * t1[v]),
              fmt::format("{}/rank", cube(n)));
        // The exchange alone: what the fused step pays for its neighbours (not overlapped; a
        // periodic axis one rank spans wraps inside the sweep, so one rank exchanges nothing).
        if (!fused || p == 1) continue;
        Engine& e = s.engine();
        auto alone = make_halo_ghosts(decomp, *tr, e.layout());
        const double t_x = time_collective(b.ctx, e, repeat, [&] {
          e.halo_after_compute();
          alone->begin(HalfStep::fused, e);
          alone->finish(HalfStep::fused, e);
        });
        b.row(name + ", exchange alone", n * n * n, t_x,
              fmt::format("the fused step's ghost exchange: {:.1f}% of the step", 100 * t_x / t),
              fmt::format("{}/rank", cube(n)));
      }
    }
    if (b.backend == Backend::cuda) bench_weak_blocked(b, n, *tr);
  }
}

// The blocked sweep across ranks (k = 4): the grid cut along z only (what it takes), x and y
// PEC, z periodic, each rank n^3; against one rank alone on n^3 with PEC faces.
void bench_weak_blocked(BenchRun& b, std::int64_t n, comm::Transport& tr) {
  constexpr int k = 4;
  const int repeat = std::max(1, b.o.repeat), p = b.ctx.size();
  const auto per_step = [&](Stepper& s, bool collective) {
    const auto pass = [&] {
      for (int q = 0; q < k; ++q) s.step();
    };
    return (collective ? time_collective(b.ctx, s.engine(), repeat, pass) : time_local(s.engine(), repeat, pass)) / k;
  };
  double t1 = 0;
  {
    auto s = single_rank_stepper(bench_model(n, false, false, Sweep::blocked, k), b.backend);
    t1 = comm::allreduce(b.ctx, per_step(*s, false), comm::Op::max);
  }
  Model m = bench_model(n, false, false, Sweep::blocked, k);
  m.cells = {n, n, n * p};
  m.faces[2] = {FaceKind::periodic, FaceKind::periodic};
  comm::CartDecomposition decomp(b.ctx, m.cells, {1, 1, p}, {false, false, true});
  const LocalDomain d = local_domain(decomp);
  auto engine = make_engine(b.backend, d, h_coefficients(m));
  auto ghosts = make_halo_ghosts(decomp, tr, engine->layout());
  Stepper s(m, d, std::move(engine), std::move(ghosts));
  if (s.block_steps() != k) {
    log::info("bench fdtd: no weak blocked row: {}", s.sweep_reason());
    return;
  }
  const double t = per_step(s, true);
  const std::string name = fmt::format("weak {} P={} blocked k={}", comm::to_string(tr.kind()), p, k);
  b.row(name, n * n * n, t,
        fmt::format("z cut into {} ranks (periodic), {} planes per z face exchanged per pass; efficiency {:.1f}% of "
                    "one rank alone with PEC faces ({:.3f} ms)",
                    p, k, 100 * t1 / t, 1e3 * t1),
        fmt::format("{}/rank", cube(n)));
  if (p == 1) return;
  Engine& e = s.engine();
  auto alone = make_halo_ghosts(decomp, tr, e.layout());
  const double t_x = time_collective(b.ctx, e, repeat, [&] { alone->exchange_pass(e, k); });
  b.row(name + ", exchange alone", n * n * n, t_x / k,
        fmt::format("a pass's plane exchange (per step): {:.1f}% of the step", 100 * t_x / k / t), fmt::format("{}/rank", cube(n)));
}

}  // namespace

BenchReport bench(comm::Context& ctx, const BenchOptions& o) {
  const Backend backend = resolve_backend(parse_backend(o.backend, "--backend"));
  BenchReport report;
  report.title = fmt::format("tessera bench fdtd: {} rank(s), backend {}, float32 Yee steps", ctx.size(),
                             to_string(backend));
  const auto dev = current_device_info();
  report.device = backend == Backend::cuda && dev ? fmt::format("{} x{}", dev->name, ctx.size())
                                                  : fmt::format("CPU ({} rank(s))", ctx.size());
  const double bw = comm::allreduce(ctx, copy_bandwidth(backend, o.quick), comm::Op::min);
  report.limit = fmt::format("{:.0f} bytes/cell at the measured copy bandwidth {:.1f} GB/s = {:.2f} G cell-updates/s",
                             kBytesPerCell, bw / 1e9, bw / kBytesPerCell / 1e9);
  const double copy_bytes = backend == Backend::cuda ? (o.quick ? 0.25 : 1.0) * (1 << 30) : (o.quick ? 64.0 : 256.0) * (1 << 20);
  report.rows.push_back({backend == Backend::cuda ? "copy D2D (cudaMemcpy)" : "copy (OpenMP loop)",
                         fmt::format("{:.0f} MiB", copy_bytes / (1 << 20)), 2 * copy_bytes / bw, bw / 1e9, "GB/s", 0,
                         "read + write bytes per second"});
  BenchRun b{ctx, backend, o, bw, report};
  const bool gpu = backend == Backend::cuda;
  std::vector<std::int64_t> sizes = o.quick ? (gpu ? std::vector<std::int64_t>{64, 128} : std::vector<std::int64_t>{24, 32})
                                            : (gpu ? std::vector<std::int64_t>{128, 256, 384, 512}
                                                   : std::vector<std::int64_t>{64, 128});
  // TESSERA_BENCH_FDTD_SIZES="512" (or "" for none) narrows the one-rank cases, e.g. for a
  // weak-scaling run that needs only its own baseline.
  if (const auto chosen = env::get_integers("TESSERA_BENCH_FDTD_SIZES")) sizes.assign(chosen->begin(), chosen->end());
  for (std::int64_t n : sizes) {
    log::info("bench fdtd: {}^3", n);
    bench_size(b, n);
  }
  const std::int64_t weak = o.quick ? (gpu ? 128 : 16) : (gpu ? 512 : 64);
  log::info("bench fdtd: weak scaling at {}^3 per rank", weak);
  bench_weak(b, weak);
  return report;
}

}  // namespace tessera::fdtd
