#include "comm/peer_window.hpp"

#include <fmt/format.h>

#include <exception>
#include <stdexcept>

#include "comm/errors.hpp"

#if defined(TESSERA_HAVE_CUDA)
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#endif

namespace tessera::comm {
namespace {

// The allocation starts with the flags (one per rank), the status word and the arrivals
// counter; the window follows at an aligned offset.
constexpr std::size_t kAlign = 256;
[[maybe_unused]] std::size_t header_bytes(int ranks) {
  const std::size_t used = (static_cast<std::size_t>(ranks) + 2) * sizeof(unsigned long long);
  return (used + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

bool PeerWindow::available(Context& ctx, std::string* why) {
  try {
    PeerWindow trial(ctx, kAlign);
    return true;
  } catch (const CollectiveError& e) {
    if (why) *why = e.what();
    return false;
  }
}

#if defined(TESSERA_HAVE_CUDA)

PeerWindow::PeerWindow(Context& ctx, std::size_t bytes) : ctx_(ctx), bytes_(bytes) {
  const int p = ctx.size(), me = ctx.rank();
  const std::size_t header = header_bytes(p);
  mapped_.assign(static_cast<std::size_t>(p), nullptr);
  opened_.assign(static_cast<std::size_t>(p), nullptr);
  const auto release = [&] {
    for (std::byte* m : opened_)
      if (m) (void)cudaIpcCloseMemHandle(m);
    if (device_tables_) (void)cudaFree(device_tables_);
    if (allocation_) (void)cudaFree(allocation_);
    (void)cudaGetLastError();  // a failed IPC call leaves a (non-sticky) error behind
  };

  cudaIpcMemHandle_t handle{};
  try {
    agree(ctx, [&] {
      if (ctx.peer_node_size() != p)
        throw std::runtime_error(
            ctx.simulated_ranks_per_node() > 0
                ? fmt::format("peer memory needs every rank on one node (TESSERA_RANKS_PER_NODE={} makes nodes of {} "
                              "of the {} ranks)",
                              ctx.simulated_ranks_per_node(), ctx.peer_node_size(), p)
                : fmt::format("peer memory needs every rank on one node (this node has {} of {} ranks)",
                              ctx.peer_node_size(), p));
      if (ctx.device() < 0) throw std::runtime_error("peer memory needs a GPU on every rank");
      TESSERA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&allocation_), header + bytes));
      TESSERA_CUDA_CHECK(cudaMemset(allocation_, 0, header + bytes));
      TESSERA_CUDA_CHECK(cudaIpcGetMemHandle(&handle, allocation_));
    });
    std::vector<cudaIpcMemHandle_t> handles(static_cast<std::size_t>(p));
    TESSERA_MPI_CHECK(MPI_Allgather(&handle, sizeof handle, MPI_BYTE, handles.data(), sizeof handle, MPI_BYTE,
                                    ctx.world()));
    agree(ctx, [&] {
      for (int r = 0; r < p; ++r) {
        if (r == me) {
          mapped_[r] = allocation_;
          continue;
        }
        void* m = nullptr;
        const cudaError_t rc = cudaIpcOpenMemHandle(&m, handles[r], cudaIpcMemLazyEnablePeerAccess);
        if (rc != cudaSuccess)
          throw std::runtime_error(fmt::format("rank {} cannot map rank {}'s GPU memory (cudaIpcOpenMemHandle: {})",
                                               me, r, cudaGetErrorString(rc)));
        opened_[r] = mapped_[r] = static_cast<std::byte*>(m);
      }
      // base[] and flags[] for the kernels.
      std::vector<void*> tables(2 * static_cast<std::size_t>(p));
      for (int r = 0; r < p; ++r) {
        tables[r] = mapped_[r] + header;
        tables[p + r] = mapped_[r];
      }
      TESSERA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device_tables_), tables.size() * sizeof(void*)));
      TESSERA_CUDA_CHECK(cudaMemcpy(device_tables_, tables.data(), tables.size() * sizeof(void*),
                                    cudaMemcpyHostToDevice));
    });
  } catch (...) {
    release();
    throw;
  }
  for (int r = 0; r < p; ++r) mapped_[r] += header;
  local_ = allocation_ + header;
  auto* words = reinterpret_cast<unsigned long long*>(allocation_);
  view_.base = reinterpret_cast<std::byte* const*>(device_tables_);
  view_.flags = reinterpret_cast<unsigned long long* const*>(device_tables_ + p * sizeof(void*));
  view_.status = words + p;
  view_.arrivals = reinterpret_cast<unsigned int*>(words + p + 1);
  view_.me = me;
  view_.ranks = p;
}

PeerWindow::~PeerWindow() {
  (void)cudaDeviceSynchronize();  // nothing of ours still stores into a peer
  if (std::uncaught_exceptions() == 0) (void)MPI_Barrier(ctx_.world());  // nor anyone's into us
  for (std::byte* m : opened_)
    if (m) (void)cudaIpcCloseMemHandle(m);
  (void)cudaFree(device_tables_);
  (void)cudaFree(allocation_);
}

#else

PeerWindow::PeerWindow(Context& ctx, std::size_t bytes) : ctx_(ctx), bytes_(bytes) {
  all_ok(ctx, false, "peer memory needs CUDA, and this tessera was built without it");
}

PeerWindow::~PeerWindow() = default;

#endif

}  // namespace tessera::comm
