#include "app/info.hpp"

#include <hdf5.h>

#include <cstring>
#include <string>

#include "comm/collectives.hpp"
#include "comm/transport.hpp"
#include "core/backend.hpp"
#include "core/device_info.hpp"
#include "core/log.hpp"
#include "app/install_location.hpp"
#include "tessera/build_info.hpp"
#include "tessera/version.hpp"

namespace tessera::app {
namespace {

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, strnlen(text, static_cast<std::size_t>(len)));  // len may count the NUL
  if (auto nl = s.find_first_of("\r\n"); nl != std::string::npos) s.resize(nl);  // first line
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return fmt::format("{} (MPI standard {}.{})", s, major, minor);
}

std::string hdf5_line() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
#if defined(H5_HAVE_PARALLEL)
  const char* parallel = "parallel (MPI-IO)";
#else
  const char* parallel = "SERIAL: collective output will not work";
#endif
  return fmt::format("{}.{}.{}, {}", maj, min, rel, parallel);
}

std::string this_rank_line(const comm::Context& ctx) {
  std::string gpu = "no GPU";
  if (auto dev = current_device_info())
    gpu = fmt::format("GPU {} {} ({:.1f} GiB, {} SMs, sm_{}{}, bus {})", dev->index, dev->name,
                      dev->total_bytes / 1073741824.0, dev->multiprocessors, dev->cc_major, dev->cc_minor,
                      dev->pci_bus_id);
  else if (cuda_compiled())
    gpu = ctx.visible_devices() == 0 ? "no GPU visible" : "GPU query failed";
  const comm::HostThreads& h = ctx.host_threads();
  std::string waits;
  if (ctx.device() >= 0) waits = fmt::format("; GPU waits {} ({})", comm::to_string(h.cuda_sync), h.cuda_sync_reason);
  return fmt::format("rank {:>3} on {} (node rank {}/{}): {}; host threads {}{}", ctx.rank(), ctx.hostname(),
                     ctx.local_rank(), ctx.local_size(), gpu, h.describe(), waits);
}

}  // namespace

int run_info(comm::Context& ctx) {
  // Every rank takes part in the collective decisions before rank 0 prints anything.
  std::string aware_how;
  const bool aware = comm::cuda_aware_mpi(ctx, &aware_how);
  const auto ranks = comm::gather_text(ctx, this_rank_line(ctx));
  const int gpus = comm::allreduce(ctx, visible_device_count() > 0 ? 1 : 0, comm::Op::min);
  const int any_gpu = comm::allreduce(ctx, visible_device_count() > 0 ? 1 : 0, comm::Op::max);
  const Backend backend = gpus ? Backend::cuda : Backend::cpu;
  comm::TransportChoice choice = comm::make_transport(ctx, backend, "auto");
  const int nodes = comm::allreduce(ctx, ctx.local_rank() == 0 ? 1 : 0, comm::Op::sum);

  if (!ctx.is_root()) return 0;
  std::string out;
  auto line = [&](std::string_view key, std::string_view value) { out += fmt::format("  {:<18} {}\n", key, value); };
  out += fmt::format("tessera {} (commit {})\n  {}\n", kVersion, kGitCommit, describe(install_location()));
  out += "build\n";
  line("build type", TESSERA_BUILD_TYPE);
  line("C++ compiler", TESSERA_CXX_COMPILER);
  line("CUDA", cuda_compiled() ? fmt::format("yes, toolkit {}, architectures {}", TESSERA_CUDA_TOOLKIT, TESSERA_CUDA_ARCHS)
                               : std::string("no (CPU backend only)"));
  line("NCCL", comm::nccl_available() ? fmt::format("yes, {}", comm::nccl_version()) : std::string("no"));
  out += "runtime\n";
  line("MPI", mpi_library());
  line("ranks", ctx.simulated_ranks_per_node() > 0
                    ? fmt::format("{} on {} node(s) of at most {} rank(s) (TESSERA_RANKS_PER_NODE) on {} host(s): peer "
                                  "memory within a node only",
                                  ctx.size(), ctx.node_count(), ctx.simulated_ranks_per_node(), nodes)
                    : fmt::format("{} on {} node(s)", ctx.size(), nodes));
  line("CUDA-aware MPI", fmt::format("{} ({})", aware ? "yes" : "no", aware_how));
  line("CUDA driver", cuda_driver_version().empty() ? std::string("none") : cuda_driver_version());
  line("HDF5", hdf5_line());
  line("backend (auto)", fmt::format("{}{}", to_string(backend),
                                     gpus ? "" : !cuda_compiled() ? " (built without CUDA)" : any_gpu ? " (some rank sees no GPU)" : " (no GPU visible)"));
  // The cpu backend's `host` is no value the deck accepts: its reason says so in words.
  line("transport (auto)", choice.transport->kind() == comm::TransportKind::host
                               ? choice.reason
                               : fmt::format("{} ({})", comm::to_string(choice.transport->kind()), choice.reason));
  out += "ranks\n";
  for (const auto& r : ranks) out += "  " + r + "\n";
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return 0;
}

}  // namespace tessera::app
