// Choosing a transport: what this build and this job can use, agreed across ranks, and why.
#include "comm/transport.hpp"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/cuda_check.hpp"
#include "core/env.hpp"
#include "core/error.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#if defined(TESSERA_HAVE_NCCL) && defined(TESSERA_HAVE_CUDA)
#include <nccl.h>
#define TESSERA_NCCL_USABLE 1
#endif

namespace tessera::comm {

std::string_view to_string(TransportKind k) {
  switch (k) {
    case TransportKind::host:
      return "host";
    case TransportKind::staged:
      return "staged";
    case TransportKind::mpi:
      return "mpi";
    case TransportKind::nccl:
      return "nccl";
  }
  return "unknown";
}

namespace {

// Agrees on a check that each rank made for itself: true only where it held on every rank
// (a MIN over ranks). `why` becomes the same text on every rank: the explanation of the lowest
// rank where the check failed (named when other ranks passed), or rank 0's where all passed.
bool agree_on_check(Context& ctx, bool ok, std::string& why) {
  const int first_failed = allreduce(ctx, ok ? INT_MAX : ctx.rank(), Op::min);
  const int any_passed = allreduce(ctx, ok ? 1 : 0, Op::max);
  broadcast(ctx, why, first_failed == INT_MAX ? 0 : first_failed);
  if (first_failed != INT_MAX && any_passed) why = fmt::format("rank {}: {}", first_failed, why);
  return first_failed == INT_MAX;
}

// What the MPI library says about device pointers on this rank, or the override. An invalid
// override is reported in `input_error`.
bool local_cuda_awareness(std::string& how, std::string& input_error) {
  try {
    if (const std::optional<bool> forced = env::get_boolean("TESSERA_CUDA_AWARE_MPI")) {
      how = fmt::format("forced by TESSERA_CUDA_AWARE_MPI={}", *forced ? 1 : 0);
      return *forced;
    }
  } catch (const InputError& e) {
    input_error = e.what();
    return false;
  }
  constexpr const char* hint = "; set TESSERA_CUDA_AWARE_MPI=1 to override";
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // The header says how the library was built; the query what it does now (Open MPI can turn
  // its CUDA support off at run time, e.g. with --mca opal_cuda_support 0).
  if (MPIX_Query_cuda_support() == 1) {
    how = "MPIX_Query_cuda_support() returned 1";
    return true;
  }
#if MPIX_CUDA_AWARE_SUPPORT
  how = fmt::format("MPIX_Query_cuda_support() returned 0: CUDA support is built in but off at run time{}", hint);
#else
  how = fmt::format("Open MPI built without CUDA support (MPIX_CUDA_AWARE_SUPPORT is 0, "
                    "MPIX_Query_cuda_support() returned 0){}", hint);
#endif
  return false;
#else
  how = fmt::format("this MPI offers no CUDA-awareness query (no MPIX_CUDA_AWARE_SUPPORT in <mpi-ext.h>; "
                    "e.g. Open MPI built without CUDA support){}", hint);
  return false;
#endif
}

// Whether the nccl transport can run: compiled in, and every rank drives a GPU of its own
// (NCCL refuses two ranks of one communicator on one device). Agreed over ranks.
bool nccl_usable(Context& ctx, std::string& why) {
#if defined(TESSERA_NCCL_USABLE)
  // Device UUIDs, not ordinals: with one GPU visible per rank, every rank has ordinal 0.
  using Uuid = std::array<unsigned char, 16>;
  Uuid mine{};
  bool ok = ctx.device() >= 0;
  if (ok) {
    cudaDeviceProp prop{};
    TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&prop, ctx.device()));
    std::memcpy(mine.data(), prop.uuid.bytes, mine.size());
    why = "every rank drives its own GPU";
  } else {
    why = fmt::format("no GPU is bound to this rank (on {})", ctx.hostname());
  }
  std::vector<Uuid> node_uuids(static_cast<std::size_t>(ctx.local_size()));
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Iallgather(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, node_uuids.data(),
                                   static_cast<int>(mine.size()), MPI_BYTE, ctx.node(), &req));
  wait(ctx, req);
  for (int other = 0; ok && other < ctx.local_rank(); ++other) {
    if (node_uuids[static_cast<std::size_t>(other)] != mine) continue;
    ok = false;
    why = fmt::format("this rank shares its GPU (device {} on {}) with node-local rank {}, and NCCL needs one GPU "
                      "per rank (start at most as many ranks per node as GPUs)",
                      ctx.device(), ctx.hostname(), other);
  }
  return agree_on_check(ctx, ok, why);
#else
  (void)ctx;
  why = cuda_compiled() ? "this tessera was built without NCCL" : "this tessera was built without CUDA and NCCL";
  return false;  // the same build on every rank: nothing to agree on
#endif
}

}  // namespace

bool cuda_aware_mpi(Context& ctx, std::string* how) {
  std::string why, input_error;
  const bool mine = local_cuda_awareness(why, input_error);
  all_ok(ctx, input_error.empty(), input_error, ExitCode::input_error);
  const bool agreed = agree_on_check(ctx, mine, why);
  if (how) *how = why;
  return agreed;
}

bool nccl_available() {
#if defined(TESSERA_NCCL_USABLE)
  return true;
#else
  return false;
#endif
}

std::string nccl_version() {
#if defined(TESSERA_NCCL_USABLE)
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
  // Codes are X*10000 + Y*100 + Z since NCCL 2.9, X*1000 + Y*100 + Z before.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return fmt::format("{}.{}.{}", major, minor, code % 100);
#else
  return "";
#endif
}

TransportChoice make_transport(Context& ctx, Backend backend, std::string_view requested) {
  const bool is_auto = requested == "auto";
  if (!is_auto && requested != "staged" && requested != "mpi" && requested != "nccl")
    throw InputError(fmt::format("unknown transport '{}' (expected auto, nccl, mpi or staged)", requested));

  // Read whatever the backend, so that a bad value is refused on a CPU-only run too.
  const std::optional<std::string> steered = env::get_choice("TESSERA_TRANSPORT");
  if (backend == Backend::cpu) {
    // Not a value of [run] transport, so messages say "no transport" rather than "host".
    std::string reason = "no transport: the cpu backend hands host memory to plain MPI";
    reason += is_auto ? std::string(" ([run] transport chooses among the cuda backend's: nccl, mpi or staged)")
                      : fmt::format(" (transport '{}' applies to the cuda backend only)", requested);
    return {detail::make_host_transport(ctx), std::move(reason)};
  }
  if (!cuda_compiled())
    throw InputError("the cuda backend needs a tessera built with CUDA (configure with -DTESSERA_CUDA=ON)");

  // A site (or a test run) may say what auto means; an explicit deck value still wins.
  if (is_auto && steered) {
    TransportChoice c = make_transport(ctx, backend, *steered);
    c.reason += fmt::format(" (auto, steered by TESSERA_TRANSPORT={})", *steered);
    return c;
  }

  if (requested == "staged")
    return {detail::make_staged_transport(ctx),
            "staged: as requested (device buffers through pinned host memory, works with any MPI)"};

  // Every decision below is agreed across ranks, so all ranks take the same branch.
  std::string nccl_why;
  if (requested == "nccl" || is_auto) {
    if (nccl_usable(ctx, nccl_why))
      return {detail::make_nccl_transport(ctx),
              fmt::format("nccl {}: {} ({})", nccl_version(), is_auto ? "preferred by auto" : "as requested",
                          nccl_why)};
    if (requested == "nccl")
      throw InputError(fmt::format("transport 'nccl' requested, but {}; use transport 'auto', 'mpi' or 'staged'",
                                   nccl_why));
  }

  std::string mpi_how;
  const bool aware = cuda_aware_mpi(ctx, &mpi_how);
  if (requested == "mpi") {
    if (!aware)
      throw InputError(fmt::format("transport 'mpi' requested, but MPI is not CUDA-aware: {}; use transport "
                                   "'auto' or 'staged'", mpi_how));
    return {detail::make_mpi_transport(ctx), fmt::format("mpi: as requested, MPI is CUDA-aware ({})", mpi_how)};
  }
  if (aware)
    return {detail::make_mpi_transport(ctx),
            fmt::format("mpi: chosen by auto, MPI is CUDA-aware ({}); nccl not usable: {}", mpi_how, nccl_why)};
  return {detail::make_staged_transport(ctx),
          fmt::format("staged: chosen by auto; nccl not usable: {}; MPI not CUDA-aware: {}", nccl_why, mpi_how)};
}

}  // namespace tessera::comm
