#include "app/run_command.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "app/install_location.hpp"
#include "app/profile_report.hpp"
#include "app/restart_check.hpp"
#include "app/run_directory.hpp"
#include "app/run_schema.hpp"
#include "app/signals.hpp"
#include "app/status.hpp"
#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/deck/load.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/profile.hpp"
#include "core/timer.hpp"
#include "io/agree.hpp"
#include "io/checkpoint.hpp"
#include "io/published.hpp"
#include "io/units.hpp"
#include "tessera/version.hpp"

namespace tessera::app {
namespace {

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("cannot read the deck '{}': it is a directory, not a TOML file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read the deck '{}': {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// All ranks run the same backend: `auto` becomes cuda only where every rank sees a GPU.
// `where` is where the request was read (a deck line or "--backend"), `setting` the request
// as the user wrote it, for the message when it cannot be met (`run.backend = "cuda" (deck:7)`).
Backend choose_backend(comm::Context& ctx, const std::string& request_text, const std::string& where,
                       const std::string& setting) {
  BackendRequest request{};
  io::agree_input(ctx, [&] { request = parse_backend(request_text, where); });  // every rank: one message, exit 2
  Backend mine = Backend::cpu;
  comm::agree(ctx, [&] { mine = resolve_backend(request, setting); });
  const bool all_cuda = comm::allreduce(ctx, mine == Backend::cuda ? 1 : 0, comm::Op::min) == 1;
  if (mine == Backend::cuda && !all_cuda) {
    log::warn("some ranks see no GPU: running every rank on the cpu backend");
    return Backend::cpu;
  }
  return mine;
}

// The step of the last output the run wrote before a checkpoint (-1: none), recorded in the
// checkpoint so a restart at that step does not write the same step's output again.
constexpr const char* kLastOutputDataset = "run/last_output";

// On a restart: the step of the checkpointed run's last output. A checkpoint from before this
// was recorded: assume the output cadence `out_every` of this deck.
std::int64_t restored_last_output(comm::Context& ctx, const io::CheckpointReader& reader, std::int64_t step,
                                  std::int64_t out_every) {
  if (!reader.root().exists(kLastOutputDataset)) return out_every > 0 && step % out_every == 0 ? step : -1;
  std::vector<std::int64_t> v = reader.read_1d_checked<std::int64_t>(kLastOutputDataset, 0, ctx.is_root() ? 1 : 0);
  v.resize(1);
  comm::broadcast(ctx, std::span<std::int64_t>(v));
  return v[0];
}

std::filesystem::path checkpoint_dir(const deck::Deck& deck, const std::filesystem::path& output_dir) {
  const std::string& dir = deck.get_string("checkpoint.dir");
  return dir.empty() ? output_dir / "checkpoints" : std::filesystem::path(dir);
}

// Validates a deck against the run tables and the solver it names.
deck::Deck load_validated(const Registry& registry, const std::string& text, const std::string& path,
                          const std::vector<std::string>& overrides) {
  if (registry.solver_names().empty()) {
    // Nothing to choose from: check the run tables, then say plainly why nothing can run.
    deck::Schema schema = run_schema(registry);
    schema.table("run").string("solver", "the solver to run");
    const deck::Deck deck = deck::load_deck(schema, text, path, overrides);
    throw InputError(fmt::format("{}: solver '{}' is not available: this tessera has no solvers built in yet",
                                 deck.where("run.solver"), deck.get_string("run.solver")));
  }
  return deck::load_deck(solver_catalog(registry), text, path, overrides);
}

// Every rank's threads follow one rule (comm/host_threads.hpp); the log says what it gave.
void log_host_threads(comm::Context& ctx, Backend backend) {
  const comm::HostThreads& h = ctx.host_threads();
  const int team = comm::openmp_team_size();
  const int fewest = comm::allreduce(ctx, team, comm::Op::min);
  const int most = comm::allreduce(ctx, team, comm::Op::max);
  const std::string teams =
      fewest == most ? fmt::format("an OpenMP team of {}", fewest) : fmt::format("OpenMP teams of {} to {}", fewest, most);
  log::info("host threads per rank: {}; {}{}", h.describe(), teams,
            backend == Backend::cuda ? fmt::format("; GPU waits {} ({})", comm::to_string(h.cuda_sync), h.cuda_sync_reason)
                                     : std::string());
}

std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") ==
                          std::string::npos)
    return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// How this process was launched, as the start of a command a user can paste: "mpirun -np 3 "
// or "srun -n 3 " from the launcher's environment, nothing for a run without a launcher.
std::string launcher_prefix() {
  const auto ranks = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v && std::string(v).find_first_not_of("0123456789") == std::string::npos ? v : "";
  };
  if (const std::string n = ranks("OMPI_COMM_WORLD_SIZE"); !n.empty()) return "mpirun -np " + n + " ";
  if (const std::string n = ranks("SLURM_STEP_NUM_TASKS"); !n.empty()) return "srun -n " + n + " ";
  if (const std::string n = ranks("PMI_SIZE"); !n.empty()) return "mpirun -np " + n + " ";  // MPICH's hydra
  return "";
}

// The executable that runs now, by absolute path (PATH may find another tessera, or none).
std::string executable_path() {
  const std::filesystem::path exe = launched_executable();
  return exe.empty() ? std::string("tessera") : exe.string();
}

}  // namespace

std::string restart_command(const RunOptions& options, bool continue_latest) {
  std::string cmd = launcher_prefix() + shell_quoted(executable_path()) + " run " +
                    shell_quoted(options.deck.empty() ? std::string("DECK") : options.deck);
  for (const std::string& o : options.overrides) cmd += " --set " + shell_quoted(o);
  if (!options.backend.empty()) cmd += " --backend " + shell_quoted(options.backend);
  if (continue_latest)
    cmd += " --restart latest";
  else if (!options.restart.empty())
    cmd += " --restart " + shell_quoted(options.restart);
  if (!continue_latest && options.overwrite) cmd += " --overwrite";
  if (options.profile) cmd += " --profile";
  return cmd;
}

deck::Deck load_run_deck(comm::Context& ctx, const Registry& registry, const std::string& path,
                         const std::vector<std::string>& overrides) {
  // Rank 0 reads and validates; the others receive the text as written and load it the same
  // way (loading is deterministic), so where() points into the user's file on every rank.
  std::optional<deck::Deck> deck;
  std::string text;
  comm::agree(ctx, [&] {
    if (!ctx.is_root()) return;  // only rank 0 opens the deck
    text = read_file(path);
    deck = load_validated(registry, text, path, overrides);
  });
  comm::broadcast(ctx, text);
  comm::agree(ctx, [&] {
    if (!ctx.is_root()) deck = load_validated(registry, text, path, overrides);
  });
  return std::move(*deck);
}

RunSummary run_deck(comm::Context& ctx, const Registry& registry, const deck::Deck& deck, const RunOptions& options) {
  const SolverInfo* info = registry.find_solver(deck.get_string("run.solver"));
  if (!info) throw std::logic_error("validated deck names an unregistered solver");
  // The profile's wall time starts here; the top-level regions below should cover it.
  const bool profiling = options.profile || deck.get_bool("run.profile");
  if (profiling) profile::start();
  profile::Region setup_region("run.setup");

  const std::string backend_text = options.backend.empty() ? deck.get_string("run.backend") : options.backend;
  const Backend backend =
      options.backend.empty()
          ? choose_backend(ctx, backend_text, deck.where("run.backend"), deck.describe("run.backend"))
          : choose_backend(ctx, backend_text, "--backend", "--backend " + options.backend);
  const comm::TransportChoice transport = comm::make_transport(ctx, backend, deck.get_string("run.transport"));

  const std::filesystem::path output_dir = deck.get_string("run.output_dir");
  const std::filesystem::path ck_dir = checkpoint_dir(deck, output_dir);
  log::info("tessera {} (commit {}): solver {}, {} rank(s), backend {}, {}", kVersion, kGitCommit, info->name,
            ctx.size(), to_string(backend),
            transport.transport->kind() == comm::TransportKind::host
                ? transport.reason  // "no transport: ..." (host is no value of [run] transport)
                : fmt::format("transport {} ({})", comm::to_string(transport.transport->kind()), transport.reason));

  log_host_threads(ctx, backend);

  // Refuse a deck that cannot fit before the solver loops over or allocates its input.
  if (info->memory)
    if (const auto need = info->memory(deck, backend))
      comm::require_memory(ctx, backend == Backend::cuda, need->per_rank, deck.describe(need->key));

  RunContext run{ctx, backend, *transport.transport, deck, output_dir, {info->name, deck.to_toml()}};
  std::unique_ptr<Solver> solver;
  comm::agree(ctx, [&] { solver = info->create(run); });
  // Only now, with the deck and the set-up accepted, is the output directory created, locked
  // and claimed for this run (app/run_directory.hpp).
  RunDirectory run_dir(ctx, deck,
                       {output_dir, ck_dir, info->name, restart_command(options, false),
                        !options.restart.empty(), options.overwrite});
  // Everything that can refuse the run comes before run_dir.accept(), which is where
  // --overwrite deletes and tessera_run.toml and the lock are rewritten: the input files
  // read, and on a restart the checkpoint opened (its checksums verified), the deck compared
  // with its own and the solver's state read from it (the solver's own checks: the same
  // matrix, graph, input). A refused run leaves the directory as it was.
  solver->read_inputs();
  std::filesystem::path restart_path = options.restart;
  std::optional<io::CheckpointReader> reader;
  std::int64_t last_output = -1;  // the step of the last output written (this run or the one it continues)
  if (!options.restart.empty()) {
    if (options.restart == "latest") {
      const auto newest = newest_checkpoint(ctx, ck_dir);
      io::agree_input(ctx, [&] {
        if (!newest) throw InputError(fmt::format("--restart latest: no checkpoint in '{}'", ck_dir.string()));
      });
      restart_path = *newest;
    }
    reader.emplace(ctx, restart_path, info->name, info->format_version);
    io::agree_input(ctx, [&] { check_restart_deck(deck, reader->manifest().deck_text, restart_path, *info); });
    TESSERA_PROFILE("run.restart");
    solver->restart(*reader);  // its output files are reopened only after its checks
    log::info("restarted from {} at step {}{}, written by {} rank(s)", restart_path.string(), solver->step(),
              solver->has_time() ? fmt::format(" (t = {:.6g})", solver->time()) : std::string(),
              reader->manifest().ranks);
    // The earlier run's last output is there only if this restart writes into its directory.
    if (run_dir.holds_earlier_run())
      last_output = restored_last_output(ctx, *reader, solver->step(), deck.get_int("output.every"));
    reader.reset();  // closed before the run writes checkpoints next to it
  }
  run_dir.accept();
  setup_region.end();

  const std::int64_t out_every = deck.get_int("output.every");
  const std::int64_t diag_every = deck.get_int("diagnostics.every");
  const std::int64_t ck_every = deck.get_int("checkpoint.every");
  const bool on_signal = deck.get_bool("checkpoint.on_signal");
  io::CheckpointManager checkpoints(ctx, ck_dir, static_cast<int>(deck.get_int("checkpoint.keep")));
  const std::string deck_text = deck.to_toml();

  RunSummary summary;
  std::int64_t last_checkpoint = -1;
  auto write_output = [&] {
    TESSERA_PROFILE("run.output");
    solver->write_output();
    ++summary.outputs;
    last_output = solver->step();
  };
  auto write_checkpoint = [&] {
    TESSERA_PROFILE("run.checkpoint");
    io::CheckpointManifest m;
    m.solver = info->name;
    m.format_version = info->format_version;
    m.step = solver->step();
    m.time = solver->time();
    m.deck_text = deck_text;
    m.tessera_version = fmt::format("{} ({})", kVersion, kGitCommit);
    m.ranks = ctx.size();
    m.rng_state = solver->rng_state();
    io::CheckpointWriter writer(ctx, ck_dir, m.step, m);
    solver->write_checkpoint(writer);
    const std::span<const std::int64_t> mine =
        ctx.is_root() ? std::span<const std::int64_t>(&last_output, 1) : std::span<const std::int64_t>();
    io::write_units(writer.write_1d_checked<std::int64_t>(kLastOutputDataset, mine, 0, 1), io::kDimensionless);
    writer.commit();
    checkpoints.prune();
    summary.last_checkpoint = checkpoints.path_for(m.step);
    ++summary.checkpoints;
    last_checkpoint = m.step;
    io::log_published(summary.last_checkpoint, "checkpoint written:");
  };

  if (!options.restart.empty()) {
    last_checkpoint = solver->step();
  } else {
    {
      TESSERA_PROFILE("run.initialize");
      solver->initialize();
    }
    if (out_every > 0) write_output();
    if (diag_every > 0) {
      TESSERA_PROFILE("run.diagnostics");
      solver->diagnostics();
      ++summary.diagnostics;
    }
  }
  summary.first_step = solver->step();

  const std::int64_t steps = deck.get_int("run.steps");
  const std::optional<double> end_time =
      deck.has("run.end_time") ? std::optional<double>(deck.get_double("run.end_time")) : std::nullopt;
  auto done = [&] {
    return solver->step() >= steps || solver->finished() || (end_time && solver->time() >= *end_time);
  };
  if (on_signal)
    install_stop_handlers();
  else
    restore_default_handlers();
  StatusReporter status(deck.get_double("run.status_interval"), summary.first_step, steps, end_time,
                        {solver->work_unit(), solver->has_time(), solver->reports_rate()});
  while (!done()) {
    {
      TESSERA_PROFILE("run.step");
      solver->advance();
    }
    const std::int64_t s = solver->step();
    status.stepped(s, solver->time(), solver->work_per_step());
    // The at-end output comes before a checkpoint at the last step, so that checkpoint records
    // it and a restart from it does not write it again.
    const bool last = done();
    if ((out_every > 0 && s % out_every == 0) || (last && deck.get_bool("output.at_end"))) write_output();
    if (diag_every > 0 && s % diag_every == 0) {
      TESSERA_PROFILE("run.diagnostics");
      solver->diagnostics();
      ++summary.diagnostics;
    }
    if (ck_every > 0 && s % ck_every == 0) write_checkpoint();
    if (on_signal) {
      // Agreed, so every rank stops at the same step even if the signal reached only some.
      profile::Region stop_check("run.stop_check");
      const int sig = comm::allreduce(ctx, stop_signal(), comm::Op::max);
      stop_check.end();
      if (sig != 0) {
        log::warn("signal {} received: writing a checkpoint at step {} and stopping", sig, s);
        if (last_checkpoint != s) write_checkpoint();
        // At once: mpirun, signalled itself, kills the ranks about a second after forwarding
        // (docs/user-guide.md, "Signals"), so this line must not wait for the summary.
        log::info("stopped early by signal {}; continue with: {}", sig, restart_command(options));
        summary.stop_signal = sig;
        break;
      }
    }
  }
  if (summary.stop_signal == 0) {
    if (deck.get_bool("output.at_end") && last_output != solver->step()) write_output();
    if (deck.get_bool("checkpoint.at_end") && last_checkpoint != solver->step()) write_checkpoint();
  }
  summary.last_step = solver->step();
  summary.time = solver->time();
  {
    TESSERA_PROFILE("run.finish");
    solver->synchronize();  // the steps queued on a GPU are in the closing line's wall time
    status.finish(summary.last_step, summary.time);
    solver->summary();
  }
  if (profiling) report_profile(ctx, output_dir, run.provenance);
  io::log_published(output_dir, "outputs in");
  return summary;
}

int run_command(comm::Context& ctx, const RunOptions& options) {
  // At once, so a batch system's early warning is remembered, not fatal (the default action of
  // SIGUSR1 ends the process); run_deck restores the defaults if the deck turns this off.
  install_stop_handlers();
  const Registry& registry = builtin_registry();
  const deck::Deck deck = load_run_deck(ctx, registry, options.deck, options.overrides);
  run_deck(ctx, registry, deck, options);
  return 0;
}

}  // namespace tessera::app
