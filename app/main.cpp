// tessera: the command line. Every rank parses the same argv (so no rank waits for another to
// tell it what to do); only rank 0 prints help, usage errors and reports.
#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>

#include "app/bench.hpp"
#include "app/environment.hpp"
#include "app/info.hpp"
#include "app/install_location.hpp"
#include "app/keys.hpp"
#include "app/run_command.hpp"
#include "app/signals.hpp"
#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "io/h5_file.hpp"
#include "core/env.hpp"
#include "core/log.hpp"
#include "tessera/version.hpp"

using namespace tessera;

namespace {
// The earliest code an executable runs (after the dynamic loader, before the shared
// libraries' initializers, MPI_Init and main): a SIGUSR1 that mpirun forwards, or that
// reaches a rank as soon as it exists, is remembered instead of ending the rank
// (app/signals.hpp). A signal before this point (the loader's few ms) still has its default
// action; no code of the executable can run earlier.
extern "C" void tessera_preinit(int, char**, char**) { app::install_early_handlers(); }
[[gnu::section(".preinit_array"), gnu::used]] void (*tessera_preinit_entry)(int, char**, char**) = tessera_preinit;
}  // namespace

int main(int argc, char** argv) {
  app::install_early_handlers();  // again, in case a library's initializer changed them
  comm::Context ctx(&argc, &argv);
  const int code = comm::run_guarded(ctx, [&]() -> int {
    CLI::App cli{"tessera: N-body, FDTD, scan, BFS and SpMV/CG on one to many GPUs over MPI"};
    const app::InstallLocation installed = app::install_location();
    cli.set_version_flag("--version", fmt::format("tessera {} (commit {})\n{}", kVersion, kGitCommit, describe(installed)));
    cli.footer(app::help_footer(installed));
    cli.require_subcommand(1);
    std::string log_level = "info";
    auto* log_level_opt = cli.add_option("--log-level", log_level, "debug, info, warn, error or off (default: "
                                         "TESSERA_LOG_LEVEL, else info)");

    app::RunOptions run;
    auto* run_cmd = cli.add_subcommand("run", "run a deck: init (or restart), steps, outputs, checkpoints");
    run_cmd->add_option("deck", run.deck, "TOML deck")->required();
    run_cmd->add_option("--set", run.overrides, "override a deck value: table.key=value (repeatable)");
    run_cmd->add_option("--backend", run.backend, "auto, cpu or cuda (overrides [run] backend)");
    run_cmd->add_option("--restart", run.restart, "checkpoint file to continue from ('latest' = newest in the checkpoint dir)");
    run_cmd->add_flag("--overwrite", run.overwrite, "delete an earlier run's outputs in output_dir before starting");
    run_cmd->add_flag("--profile", run.profile, "time the run's regions: a table at the end and OUTPUT_DIR/profile.h5 "
                                                "(as [run] profile = true)");

    auto* info_cmd = cli.add_subcommand("info", "build options, MPI, CUDA-aware MPI, NCCL, GPUs per rank, HDF5, transport");

    app::BenchOptions bench;
    auto* bench_cmd = cli.add_subcommand("bench", "benchmark tables (text and JSON) for docs/performance.md");
    bench_cmd->add_option("target", bench.target, "what to benchmark: " + app::bench_targets())->required();
    bench_cmd->add_option("--json", bench.json, "also write the results as JSON to this file");
    bench_cmd->add_option("--backend", bench.backend, "auto, cpu or cuda");
    bench_cmd->add_option("--transport", bench.transport, "auto, staged, mpi or nccl");
    bench_cmd->add_option("--repeat", bench.repeat, "timed repetitions per case (median reported)")->check(CLI::PositiveNumber);
    bench_cmd->add_flag("--quick", bench.quick, "small sizes only (a smoke test)");

    std::string keys_solver;
    auto* keys_cmd = cli.add_subcommand("keys", "print every deck key with type, unit, default and range, or with "
                                                "--env every TESSERA_* environment variable (Markdown)");
    bool keys_env = false;
    auto* keys_solver_opt =
        keys_cmd->add_option("solver", keys_solver, "only [run]/[output]/... and this solver's tables");
    keys_cmd->add_flag("--env", keys_env, "print the TESSERA_* environment variables instead (Markdown)")
        ->excludes(keys_solver_opt);

    try {
      cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() != 0) {
        // A usage error reads like tessera's other errors: "[tessera] error: ...", exit 2.
        if (ctx.is_root())
          log::write(log::Level::error, false,
                     fmt::format("{} (tessera --help, or tessera COMMAND --help, lists the options)", e.what()));
        return static_cast<int>(ExitCode::input_error);
      }
      std::ostringstream out, err;  // --help, --version
      cli.exit(e, out, err);
      if (ctx.is_root()) {
        std::cout << out.str();
        std::cerr << err.str();
      }
      return 0;
    }
    if (log_level_opt->count() == 0) log_level = *env::get_choice("TESSERA_LOG_LEVEL");
    log::set_level(log::parse_level(log_level));
    app::warn_undeclared_environment();

    if (*run_cmd) return app::run_command(ctx, run);
    if (*info_cmd) return app::run_info(ctx);
    if (*bench_cmd) return app::run_bench(ctx, bench);
    if (*keys_cmd) return keys_env ? app::print_environment(ctx) : app::print_keys(ctx, keys_solver);
    return 0;
  });
  // A failed write can leave HDF5 files that could not be closed collectively (io::OutputFile
  // gives them up); HDF5 would close them inside MPI_Finalize, where HDF5 1.10 crashes. Every
  // rank got the same code (run_guarded), so every rank takes the same branch.
  if (code != 0 && comm::allreduce(ctx, io::open_file_count(), comm::Op::max) > 0) ctx.exit_without_finalize(code);
  return code;
}
