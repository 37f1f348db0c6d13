#include "solvers/bfs/bfs_solver.hpp"

#include <fmt/format.h>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/partition.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/profile.hpp"
#include "io/checkpoint.hpp"
#include "io/units.hpp"
#include "io/published.hpp"
#include "solvers/bfs/roots.hpp"
#include "solvers/bfs/validate.hpp"

namespace tessera::bfs {
namespace {

// A small array every rank holds: each rank reads (and checksums) its block, then all
// blocks go to every rank.
template <class T>
std::vector<T> read_replicated(const io::CheckpointReader& in, std::string_view name, std::int64_t count) {
  comm::Context& ctx = in.root().context();
  const Range mine = block_range(count, ctx.size(), ctx.rank());
  const std::vector<T> part = in.read_1d_checked<T>(name, mine.begin, mine.count);
  std::vector<T> send;
  for (int r = 0; r < ctx.size(); ++r) send.insert(send.end(), part.begin(), part.end());
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(ctx.size()), mine.count);
  return comm::alltoallv<T>(ctx, send, counts);
}

}  // namespace

BfsSolver::BfsSolver(RunContext& run)
    : run_(run), ctx_(run.ctx), output_(run.ctx, run.output_dir / "bfs.h5", run.provenance) {
  const deck::Config& d = run.deck;
  spec_ = graph_spec_from_deck(d);
  options_.algorithm = parse_algorithm(d.get_string("bfs.algorithm"));
  options_.policy.alpha = d.get_double("bfs.alpha");
  options_.policy.beta = d.get_double("bfs.beta");
  options_.exchange = parse_exchange_mode(d.get_string("bfs.exchange"));
  options_.hub_degree = d.get_int("bfs.hub_degree");
  graph500_ = d.get_bool("bfs.graph500");
  validate_ = d.get_bool("bfs.validate");
  root_count_ = static_cast<int>(d.get_int("bfs.root_count"));
  root_seed_ = static_cast<std::uint64_t>(d.get_int("bfs.root_seed"));
  trees_ = d.get_int("bfs.trees");
  if (d.has("bfs.roots")) given_roots_ = d.get_int_array("bfs.roots");
  if (graph500_ && d.has("bfs.roots"))
    throw InputError(fmt::format("{}: bfs.roots and bfs.graph500 = true exclude each other (Graph500 mode draws its "
                                 "own roots)",
                                 d.where("bfs.roots")));
  if (!graph500_ && given_roots_.empty())
    throw InputError(fmt::format("{}: give the search roots in bfs.roots, or set bfs.graph500 = true",
                                 d.where("bfs.graph500")));
  if (graph500_ && !validate_)
    throw InputError(fmt::format("{}: Graph500 mode validates every search; bfs.validate = false contradicts it",
                                 d.where("bfs.validate")));
  if (options_.algorithm == Algorithm::serial && (run.backend != Backend::cpu || ctx_.size() != 1))
    throw InputError(fmt::format("{}: the serial search runs on the cpu backend on one rank (here: {}, {} rank(s))",
                                 d.where("bfs.algorithm"), to_string(run.backend), ctx_.size()));
}

BfsSolver::~BfsSolver() = default;

void BfsSolver::prepare() {
  built_ = build_graph_from_spec(ctx_, spec_);
  const LocalGraph& g = built_->graph;
  log::info("graph: {}", built_->description);
  log::info("graph: {} vertices, {} input edges ({} self-loops), {} CSR entries after removing self-loops and "
            "repeats; built in {:.3f} s",
            g.vertices(), g.input_edges, g.self_loops, g.directed_edges, built_->read_seconds + built_->construction_seconds);
  for (std::int64_t r : given_roots_)
    if (r < 0 || r >= g.vertices())
      throw InputError(fmt::format("{}: bfs.roots: root {} is not a vertex of the graph (ids 0 to {})",
                                   run_.deck.where("bfs.roots"), r, g.vertices() - 1));
  roots_ = graph500_ ? sample_roots(ctx_, g, root_count_, root_seed_) : given_roots_;
  if (roots_.empty()) throw InputError("the graph has no vertex with a neighbour: nothing to search");
  if (graph500_ && static_cast<int>(roots_.size()) < root_count_)
    log::warn("only {} vertices have a neighbour: searching from {} roots instead of {}", roots_.size(), roots_.size(),
              root_count_);
  const std::int64_t steps = run_.deck.get_int("run.steps");
  if (steps < static_cast<std::int64_t>(roots_.size()))
    log::warn("run.steps = {} stops after {} of the {} roots", steps, steps, roots_.size());
  driver_ = std::make_unique<SearchDriver>(ctx_, run_.transport, g, run_.backend, options_);
  // One untimed search first, so no timed search pays for first touches (thread pools,
  // kernel loading, lazily allocated buffers).
  driver_->search(roots_.front());
  log::info("bfs: {} search on the {} backend, {} root(s){}", to_string(options_.algorithm), to_string(run_.backend),
            roots_.size(), validate_ ? ", each validated" : "");
  if (ctx_.size() > 1) log::info("bfs: exchanges {}", driver_->exchange_reason());
  if (driver_->levels_on_device()) log::info("bfs: the GPU runs the level loop (one CUDA graph per search)");
  if (driver_->delegated_hubs() > 0)
    log::info("bfs: {} hubs (degree >= {}) are expanded by every GPU", driver_->delegated_hubs(),
              driver_->hub_degree());
}

GraphAttributes BfsSolver::attributes() const {
  const LocalGraph& g = built_->graph;
  return {built_->description, std::string(to_string(run_.backend)), std::string(to_string(options_.algorithm)),
          g.vertices(), g.input_edges, g.self_loops, g.directed_edges, ctx_.size()};
}

void BfsSolver::read_inputs() {
  if (driver_) return;  // done
  comm::agree(ctx_, [&] { prepare(); });
}

void BfsSolver::initialize() {
  read_inputs();
  output_.create(attributes());
}

void BfsSolver::restart(io::CheckpointReader& in) {
  read_inputs();
  const std::int64_t step = in.manifest().step;
  if (step > static_cast<std::int64_t>(roots_.size()))
    throw InputError(fmt::format("{}: the checkpoint is at step {}, but this deck has {} roots", in.path().string(),
                                 step, roots_.size()));
  results_.clear();
  if (step > 0) {
    const auto root = read_replicated<std::int64_t>(in, "result_root", step);
    const auto seconds = read_replicated<double>(in, "result_seconds", step);
    const auto edges = read_replicated<std::int64_t>(in, "result_input_edges", step);
    const auto reached = read_replicated<std::int64_t>(in, "result_reached", step);
    const auto levels = read_replicated<std::int64_t>(in, "result_levels", 3 * step);
    for (std::int64_t k = 0; k < step; ++k) {
      if (root[k] != roots_[k])
        throw InputError(fmt::format("{}: search {} of the checkpoint started at root {}, but the deck gives root {} "
                                     "(the graph or the roots changed)",
                                     in.path().string(), k, root[k], roots_[k]));
      SearchResult r;
      r.root = root[k];
      r.seconds = seconds[k];
      r.input_edges = edges[k];
      r.reached = reached[k];
      r.depth = static_cast<int>(levels[3 * k]);
      r.top_down_levels = static_cast<int>(levels[3 * k + 1]);
      r.bottom_up_levels = static_cast<int>(levels[3 * k + 2]);
      results_.push_back(r);
    }
  }
  validated_ = validate_ ? step : 0;
  output_.reopen(attributes(), step);
}

void BfsSolver::advance() {
  const std::int64_t k = step();
  const std::int64_t root = roots_[static_cast<std::size_t>(k)];
  profile::Region search_region("bfs.search");  // bfs.profile's per-level table details it
  const SearchResult r = driver_->search(root);
  search_region.end();
  bool validated = false;
  if (validate_) {
    TESSERA_PROFILE("bfs.validate");
    const ValidationReport report = validate(*driver_, root);
    // Every rank holds the same report: fail together, rank 0 prints.
    if (!report.ok()) throw comm::CollectiveError(0, ExitCode::runtime_error, report.message);
    validated = true;
    ++validated_;
  }
  results_.push_back(r);
  log::debug("root {}: {:.6f} s, {} edges, {:.4g} TEPS, {} reached, depth {} ({} top-down, {} bottom-up levels)",
             root, r.seconds, r.input_edges, r.teps(), r.reached, r.depth, r.top_down_levels, r.bottom_up_levels);
  TESSERA_PROFILE("bfs.record");  // the tree copied out and queued for bfs.h5
  const bool keep_tree = trees_ < 0 || k < trees_;
  std::optional<BfsTree> tree;
  if (keep_tree) tree = driver_->local_tree();
  const LocalGraph& g = built_->graph;
  output_.append(step(), r, validated, std::move(tree), g.begin, g.vertices());
}

void BfsSolver::write_output() { output_.write_statistics(results_); }

void BfsSolver::diagnostics() {
  std::vector<double> teps;
  for (const auto& r : results_) teps.push_back(r.teps());
  const Statistics s = summarize(teps);
  log::info("bfs: {} searches, TEPS harmonic mean {:.4g} (min {:.4g}, median {:.4g}, max {:.4g})", s.count,
            s.harmonic_mean, s.min, s.median, s.max);
}

void BfsSolver::write_checkpoint(io::CheckpointWriter& out) {
  output_.publish();  // the file then holds every search up to this step
  const auto step = static_cast<std::int64_t>(results_.size());
  if (step == 0) return;
  std::vector<std::int64_t> root, edges, reached, levels;
  std::vector<double> seconds;
  for (const auto& r : results_) {
    root.push_back(r.root);
    seconds.push_back(r.seconds);
    edges.push_back(r.input_edges);
    reached.push_back(r.reached);
    levels.insert(levels.end(), {r.depth, r.top_down_levels, r.bottom_up_levels});
  }
  // Rank 0 writes the (replicated) results; the others take part with empty parts.
  const bool me = ctx_.is_root();
  auto part = [&](const auto& v) { return me ? std::span(v) : std::span(v).subspan(0, 0); };
  const std::int64_t at = me ? 0 : step;
  io::write_units(out.write_1d_checked<std::int64_t>("result_root", part(root), at, step), io::kDimensionless);
  io::write_units(out.write_1d_checked<double>("result_seconds", part(seconds), at, step), "s");
  io::write_units(out.write_1d_checked<std::int64_t>("result_input_edges", part(edges), at, step), io::kDimensionless);
  io::write_units(out.write_1d_checked<std::int64_t>("result_reached", part(reached), at, step), io::kDimensionless);
  io::write_units(out.write_1d_checked<std::int64_t>("result_levels", part(levels), me ? 0 : 3 * step, 3 * step),
                  io::kDimensionless);
}

double BfsSolver::work_per_step() const {
  return results_.empty() ? 0.0 : static_cast<double>(results_.back().input_edges);
}

void BfsSolver::summary() {
  if (!built_) return;
  output_.publish();
  io::log_published(output_.path());
  std::vector<double> teps, time, nedge;
  for (const auto& r : results_) {
    teps.push_back(r.teps());
    time.push_back(r.seconds);
    nedge.push_back(static_cast<double>(r.input_edges));
  }
  const auto names = statistic_names();
  const auto t = statistic_values(summarize(teps)), s = statistic_values(summarize(time)),
             e = statistic_values(summarize(nedge));
  std::string text = "Graph500-style summary\n";
  if (spec_.source == GraphSource::kronecker)
    text += fmt::format("SCALE: {}\nedgefactor: {}\n", spec_.kronecker.scale, spec_.kronecker.edgefactor);
  text += fmt::format("NBFS: {}\nnum_mpi_processes: {}\nbackend: {}\nalgorithm: {}\nconstruction_time: {:.6g}\n",
                      results_.size(), ctx_.size(), to_string(run_.backend), to_string(options_.algorithm),
                      built_->read_seconds + built_->construction_seconds);
  for (std::size_t i = 0; i < names.size(); ++i) text += fmt::format("{}_time: {:.6g}\n", names[i], s[i]);
  for (std::size_t i = 0; i < names.size(); ++i) text += fmt::format("{}_nedge: {:.6g}\n", names[i], e[i]);
  for (std::size_t i = 0; i < names.size(); ++i) text += fmt::format("{}_TEPS: {:.6g}\n", names[i], t[i]);
  text += fmt::format("validated: {} of {}", validated_, results_.size());
  log::info("{}", text);
}

}  // namespace tessera::bfs
