// The one table of environment variables (see core/env.hpp). A new TESSERA_* variable is
// declared here, read with env::get_*, and appears in docs/environment.md after
// `tessera keys --env > docs/environment.md` (a test compares the two).
//
// Core knows only names, types and allowed words, not what a solver does with them: the
// allowed words of a solver's knob (BFS algorithms, exchange modes) are listed here as text.
#include <array>

#include "core/env.hpp"

namespace tessera::env {
namespace {

using enum Type;
using enum Scope;

constexpr std::array kVariables{
    // ---- read by tessera ----------------------------------------------------------------------
    Variable{.name = "TESSERA_LOG_LEVEL", .type = choice, .scope = executable, .fallback = "info",
             .choices = "debug,info,warn,warning,error,off", .used_by = "every command",
             .help = "the log level when --log-level is not given (--log-level wins)"},
    Variable{.name = "TESSERA_IGNORE_SLURM_NTASKS", .type = boolean, .scope = executable, .fallback = "0",
             .used_by = "every command",
             .help = "1: do not refuse a start where Slurm started several tasks but MPI sees one rank "
                     "(independent one-rank copies on purpose)"},
    Variable{.name = "TESSERA_CUDA_AWARE_MPI", .type = boolean, .scope = executable,
             .default_doc = "detected (`MPIX_Query_cuda_support`)", .used_by = "run, bench, info",
             .help = "overrides the detection of a CUDA-aware MPI (transport `mpi`): 1 hands MPI device "
                     "pointers, 0 never does"},
    Variable{.name = "TESSERA_HOST_MEMORY", .type = integer, .scope = executable,
             .default_doc = "unset: what the node reports", .min = 1, .used_by = "run",
             .help = "bytes of host memory per node that the memory check of a run may count, at most (it takes "
                     "the smaller of this, MemAvailable and the cgroup's limit): for a node shared with other work"},
    Variable{.name = "TESSERA_TRANSPORT", .type = choice, .scope = executable,
             .default_doc = "unset: auto prefers nccl, then mpi, then staged", .choices = "nccl,mpi,staged",
             .used_by = "run, bench, info, tests",
             .help = "what [run] transport = \"auto\" picks for the cuda backend (an explicit deck value still "
                     "wins); it must be available: e.g. mpi to run every GPU test on a CUDA-aware MPI"},
    Variable{.name = "TESSERA_CUDA_SYNC", .type = choice, .scope = executable, .fallback = "auto",
             .choices = "auto,spin,yield", .used_by = "run, bench, info, tests",
             .help = "how a rank's host waits for its GPU: auto polls and yields the core between polls where the "
                     "rank has fewer than 2 cores of its own, so the transport's helper threads (NCCL's proxy) run, "
                     "and leaves the driver's spin elsewhere"},
    Variable{.name = "TESSERA_LAUNCHER", .type = string, .scope = executable, .default_doc = "set by bin/tessera",
             .used_by = "every command",
             .help = "not for users: bin/tessera (the launcher that blocks the stop signals while the loader runs) "
                     "names itself here when it starts bin/tessera-core, which prints it in restart commands"},
    Variable{.name = "TESSERA_RANKS_PER_NODE", .type = integer, .scope = executable,
             .default_doc = "unset: the ranks of a host form one node", .min = 1, .used_by = "run, bench, info",
             .help = "a test knob: groups of this many consecutive ranks of a host count as one node, so GPU peer "
                     "memory (CUDA IPC) stays within a group; 1 runs the code paths of a job spread over nodes on "
                     "one host (with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 for NCCL's network path)"},
    Variable{.name = "TESSERA_BFS_PROFILE", .type = boolean, .scope = executable, .fallback = "0",
             .used_by = "run, bench bfs",
             .help = "per-level times of each BFS search on rank 0 (host loop: kernels / exchange / counts; "
                     "GPU loop: every rank's steps and shares by the GPU's clock)"},
    Variable{.name = "TESSERA_FDTD_FUSED_TILE", .type = integers, .scope = executable,
             .default_doc = "unset: 32 x 8 tiles, z stretches chosen", .min = 0, .max = 4096,
             .used_by = "run, bench fdtd",
             .help = "the fused sweep's shape, for tuning: the tile's y extent (8 or 16), then optionally the number "
                     "of z stretches (0: chosen), e.g. 16,1"},
    Variable{.name = "TESSERA_FDTD_FUSED_OVERLAP", .type = boolean, .scope = executable, .fallback = "1",
             .used_by = "run, bench fdtd",
             .help = "ranks cut along z alone: 1 sweeps the fused sweep's inner z stretches while the ghost planes "
                     "travel, 0 waits for them first (for measuring the overlap)"},
    Variable{.name = "TESSERA_FDTD_BLOCKED_OVERLAP", .type = boolean, .scope = executable, .fallback = "1",
             .used_by = "run, bench fdtd",
             .help = "the blocked sweep across ranks: 1 runs each pass's inner z stretches while the neighbours' "
                     "planes travel, then the two end stretches; 0 exchanges the planes first (for measuring the "
                     "overlap)"},
    Variable{.name = "TESSERA_FDTD_BLOCKED_TILE", .type = integers, .scope = executable,
             .default_doc = "unset: 32 x 32 tiles, z stretches chosen", .min = 0, .max = 4096,
             .used_by = "run, bench fdtd",
             .help = "the blocked sweep's shape, for tuning: the tile's y extent (16 or 32), then optionally the "
                     "number of z stretches (0: chosen), e.g. 16,4"},
    Variable{.name = "TESSERA_BENCH_FDTD_SIZES", .type = integers, .scope = executable,
             .default_doc = "cuda: 128,256,384,512; cpu: 64,128 (--quick: 64,128; 24,32)", .min = 1,
             .used_by = "bench fdtd",
             .help = "the one-rank grid sizes (N of N^3 cells); empty: none, only the weak-scaling rows"},
    Variable{.name = "TESSERA_NBODY_KERNELS", .type = words, .scope = executable,
             .default_doc = "unset: the usual tables", .used_by = "bench nbody (cuda)",
             .help = "compare only these force-kernel shapes (`split-all`, `split:g256:b4:u8:m4`, "
                     "`tiled:g256:s1:b4`, ...) at TESSERA_NBODY_SIZES (nbody.md)"},
    Variable{.name = "TESSERA_NBODY_SIZES", .type = integers, .scope = executable, .fallback = "4096,262144,1048576",
             .min = 1, .used_by = "bench nbody (cuda)",
             .help = "the body counts of the kernel comparison (with TESSERA_NBODY_KERNELS)"},
    Variable{.name = "TESSERA_BENCH_SCAN_LOOKBACK", .type = words, .scope = executable, .default_doc = "none",
             .used_by = "bench scan (cuda)",
             .help = "`all` or look-back candidate names: compare these policies with CUB in the one-GPU "
                     "table; unknown names are reported (scan.md)"},
    Variable{.name = "TESSERA_BENCH_SPMV_WEAK", .type = integer, .scope = executable,
             .default_doc = "unset: the usual tables (one matrix split over the ranks)", .min = 8, .max = 4096,
             .used_by = "bench spmv",
             .help = "weak scaling: a 7-point Poisson matrix of about N^3 rows per rank (n = N P^(1/3) rounded), by "
                     "the hybrid kernel, cuSPARSE and a CG iteration; run at P = 1, 2, 4 for the table"},
    Variable{.name = "TESSERA_BENCH_BFS_SCALES", .type = integers, .scope = executable,
             .default_doc = "16,18,20,22,24 (--quick: 10,12)", .min = 1, .max = 34, .used_by = "bench bfs",
             .help = "Kronecker graph scales (2^scale vertices), one table section each"},
    Variable{.name = "TESSERA_BENCH_BFS_ROOTS", .type = integer, .scope = executable, .default_doc = "64 (--quick: 8)",
             .min = 1, .max = 2147483647, .used_by = "bench bfs", .help = "search roots per scale"},
    Variable{.name = "TESSERA_BENCH_BFS_PROFILED", .type = integer, .scope = executable, .default_doc = "2",
             .min = 0, .max = 2147483647, .used_by = "bench bfs (with TESSERA_BFS_PROFILE=1)",
             .help = "how many of the roots are searched once more, profiled, after the timed searches (at most "
                     "all of them)"},
    Variable{.name = "TESSERA_BENCH_BFS_ALGORITHMS", .type = words, .scope = executable,
             .default_doc = "all that apply", .choices = "direction_optimizing,top_down,bottom_up,edge_parallel,serial",
             .used_by = "bench bfs", .help = "only these algorithms run"},
    Variable{.name = "TESSERA_BENCH_BFS_ALPHAS", .type = words, .scope = executable, .default_doc = "14/24",
             .used_by = "bench bfs",
             .help = "direction_optimizing once per `alpha` or `alpha/beta` (positive numbers, e.g. `14,28,14/48`), "
                     "one row each"},
    Variable{.name = "TESSERA_BENCH_BFS_EAGER", .type = integers, .scope = executable, .default_doc = "32768",
             .min = 0, .used_by = "bench bfs",
             .help = "direction_optimizing once per eager-pair count per rank (0: counts first, then the pairs)"},
    Variable{.name = "TESSERA_BENCH_BFS_EXCHANGE", .type = words, .scope = executable, .default_doc = "auto",
             .choices = "auto,peer,transport", .used_by = "bench bfs",
             .help = "direction_optimizing once per exchange mode (peer memory or the transport)"},
    Variable{.name = "TESSERA_BENCH_BFS_LOOP", .type = words, .scope = executable, .default_doc = "device",
             .choices = "device,host", .used_by = "bench bfs",
             .help = "direction_optimizing once per driver of the level loop (the GPU where it can, or the host)"},
    Variable{.name = "TESSERA_BENCH_BFS_HUBS", .type = words, .scope = executable, .default_doc = "0",
             .used_by = "bench bfs",
             .help = "direction_optimizing once per delegated-hub degree: `auto` or a degree >= 0 (0: none)"},
    Variable{.name = "TESSERA_BENCH_BFS_WAKE", .type = words, .scope = executable, .default_doc = "on",
             .choices = "on,off", .used_by = "bench bfs",
             .help = "direction_optimizing with (`on`) and without (`off`) waking the peer links before each search"},
    // ---- read by the scripts shipped with tessera (not by the executable) ----------------------
    Variable{.name = "TESSERA_HOME", .type = string, .scope = scripts, .default_doc = "`$SLURM_SUBMIT_DIR`",
             .used_by = "jobscripts/slurm/*.sbatch",
             .help = "the tessera checkout whose inputs/ and tessera-job.sh the batch scripts use"},
    Variable{.name = "TESSERA_CUDA", .type = choice, .scope = scripts, .default_doc = "CMake's default (AUTO)",
             .choices = "AUTO,ON,OFF", .used_by = "scripts/quickstart.sh",
             .help = "passed to CMake as -DTESSERA_CUDA: build with CUDA when found, always, or never"},
    // ---- test-only: the test suite sets these for itself -----------------------------------------
    Variable{.name = "TESSERA_TEST_SYSTEM_INSTALL", .type = boolean, .scope = test, .fallback = "0",
             .used_by = "tests/install/deb_package.sh (CI: .ci/run sets it)",
             .help = "1, as root: the Debian package's test installs the package on this machine with apt-get, runs "
                     "the demo from /usr/bin and removes the package"},
    Variable{.name = "TESSERA_FAKE_DISK_DIR", .type = string, .scope = test, .default_doc = "none",
             .used_by = "tests/support/fake_full_disk.c",
             .help = "the directory the LD_PRELOAD shim makes behave like a small disk"},
    Variable{.name = "TESSERA_FAKE_DISK_BYTES", .type = integer, .scope = test, .default_doc = "none", .min = 0,
             .used_by = "tests/support/fake_full_disk.c",
             .help = "the size of that disk: writes beyond it fail with ENOSPC"},
    Variable{.name = "TESSERA_FAKE_DISK_RANK", .type = integer, .scope = test, .default_doc = "every rank", .min = 0,
             .used_by = "tests/support/fake_full_disk.c", .help = "the disk is full only for this MPI rank"},
    Variable{.name = "TESSERA_FAKE_READONLY_DIR", .type = string, .scope = test, .default_doc = "none",
             .used_by = "tests/support/fake_full_disk.c",
             .help = "a directory the shim makes read-only (EROFS), as a read-only mount"},
    Variable{.name = "TESSERA_IO_P2Q_DIR", .type = string, .scope = test, .default_doc = "none",
             .used_by = "tests/io", .help = "where the io write-then-read test leaves files for the other rank count"},
    Variable{.name = "TESSERA_NBODY_P2Q_DIR", .type = string, .scope = test, .default_doc = "none",
             .used_by = "tests/solvers/nbody",
             .help = "where the nbody restart test leaves checkpoints for the other rank count"},
    Variable{.name = "TESSERA_KEEP_TEST_FILES", .type = string, .scope = test, .default_doc = "unset: removed",
             .used_by = "tests/solvers/nbody", .help = "set (to anything): keep the nbody tests' temporary files"},
};

// Each name once, each a TESSERA_ name: checked when this file compiles.
constexpr bool well_formed() {
  for (std::size_t i = 0; i < kVariables.size(); ++i) {
    if (!kVariables[i].name.starts_with("TESSERA_") || kVariables[i].help.empty()) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (kVariables[i].name == kVariables[j].name) return false;
  }
  return true;
}
static_assert(well_formed(), "every environment variable is declared once, named TESSERA_*, with a line of help");

}  // namespace

std::span<const Variable> registry() { return kVariables; }

}  // namespace tessera::env
