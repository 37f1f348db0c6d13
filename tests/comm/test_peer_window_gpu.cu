// comm::PeerWindow and the device helpers of comm/peer_sync.cuh, run for P = 1..4 ranks on a
// GPU host: the window is zeroed and mapped for every rank; a kernel that stores into every
// rank's window and then signals (last_block_done + signal_and_wait) leaves every rank's data
// in every window once it has finished, with many blocks or one; sequence numbers advance over
// rounds queued back to back with no host barrier; and the wait really waits for a rank that
// signals late. Without
// a GPU, or where the ranks cannot map each other's memory (different nodes), every test skips.
//
// Every rank sends a disjoint slice to every rank (itself included): sender r stores its slice
// s at offset r * chunk of rank s's window, chunk = window / P. Data are random with seeds that
// encode the sender and the round, so a receiver regenerates what each sender stored. The
// window size is odd, so slices start at unaligned offsets and a tail of the window (when
// P does not divide it) is never written and must stay zero.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/peer_sync.cuh"
#include "comm/peer_window.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/stream.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::comm {
namespace {

using Bytes = std::vector<unsigned char>;

constexpr std::size_t kWindowBytes = (std::size_t{3} << 20) + 41;  // odd: unaligned slices
constexpr unsigned kBlocks = 37, kThreads = 256;                  // several blocks, grid-stride

Bytes random_bytes(std::size_t n, std::uint64_t seed) {
  auto gen = test::rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<unsigned char>(gen() >> 56);
  return out;
}

// Everything rank `sender` sends in `round`: P slices of `chunk` bytes, slice s for rank s.
Bytes outgoing(int sender, int ranks, std::size_t chunk, std::uint64_t round) {
  return random_bytes(static_cast<std::size_t>(ranks) * chunk, 7000 + 100 * round + static_cast<std::uint64_t>(sender));
}

std::int64_t first_difference(const unsigned char* got, const unsigned char* want, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) return static_cast<std::int64_t>(i);
  return -1;
}

// Spins every thread `delay_ns` (a late rank), stores slice s of `src` at offset
// `offset + me * chunk` of rank s's window, then signals every rank with `seq` and waits for
// all of them. Byte stores: slices start at odd offsets.
__global__ void __launch_bounds__(kThreads)
    scatter_and_signal(PeerView v, const unsigned char* src, std::size_t chunk, std::size_t offset,
                       unsigned long long seq, unsigned long long delay_ns) {
  if (delay_ns > 0) {
    const unsigned long long start = peer::global_nanoseconds();
    while (peer::global_nanoseconds() - start < delay_ns) {
    }
  }
  const std::size_t total = chunk * static_cast<std::size_t>(v.ranks);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t mine = static_cast<std::size_t>(v.me) * chunk;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    auto* to = reinterpret_cast<unsigned char*>(v.base[i / chunk]);
    to[offset + mine + i % chunk] = src[i];
  }
  if (peer::last_block_done(v)) peer::signal_and_wait(v, seq);
}

void launch_scatter(PeerWindow& window, const unsigned char* src, std::size_t chunk, std::size_t offset,
                    unsigned long long delay_ns, cudaStream_t stream, unsigned blocks = kBlocks) {
  scatter_and_signal<<<blocks, kThreads, 0, stream>>>(window.view(), src, chunk, offset, window.next_sequence(),
                                                      delay_ns);
  TESSERA_CUDA_CHECK_LAUNCH();
}

// This rank's outgoing bytes of `round`, on the device (ordered on `stream`).
DeviceBuffer<unsigned char> upload_outgoing(std::size_t chunk, std::uint64_t round, cudaStream_t stream) {
  const Context& ctx = test::context();
  const Bytes data = outgoing(ctx.rank(), ctx.size(), chunk, round);
  DeviceBuffer<unsigned char> buf(data.size());
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(buf.data(), data.data(), data.size(), cudaMemcpyHostToDevice, stream));
  // A pageable source: the copy has read `data` once the stream has passed it.
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return buf;
}

Bytes download(const void* device, std::size_t bytes) {
  Bytes host(bytes);
  TESSERA_CUDA_CHECK(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
  return host;
}

unsigned long long wait_status(const PeerWindow& window) {
  unsigned long long status = ~0ull;
  TESSERA_CUDA_CHECK(cudaMemcpy(&status, window.view().status, sizeof status, cudaMemcpyDeviceToHost));
  return status;
}

// `got`: kWindowBytes of this rank's window after `round`. Each sender's region holds the
// slice it generated for this rank; the tail past P * chunk was never written.
void expect_received(const unsigned char* got, std::size_t chunk, std::uint64_t round) {
  const Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  for (int r = 0; r < P; ++r) {
    const Bytes sent = outgoing(r, P, chunk, round);
    const std::size_t at = static_cast<std::size_t>(r) * chunk;
    EXPECT_EQ(first_difference(got + at, sent.data() + static_cast<std::size_t>(me) * chunk, chunk), -1)
        << "rank " << me << ", round " << round << ": the region of rank " << r << " differs";
  }
  const std::size_t tail = static_cast<std::size_t>(P) * chunk;
  const Bytes zeros(kWindowBytes - tail, 0);
  EXPECT_EQ(first_difference(got + tail, zeros.data(), zeros.size()), -1)
      << "rank " << me << ", round " << round << ": the unused tail of the window was written";
}

class PeerWindowGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    TESSERA_REQUIRE_GPU();
    std::string why;
    // Collective, with the same answer on every rank: the ranks skip together.
    if (!PeerWindow::available(test::context(), &why)) GTEST_SKIP() << "peer memory is not available: " << why;
  }
};

TEST_F(PeerWindowGpu, MapsEveryRankAndStartsZeroed) {
  Context& ctx = test::context();
  const int P = ctx.size(), me = ctx.rank();
  PeerWindow window(ctx, kWindowBytes);
  EXPECT_EQ(window.bytes(), kWindowBytes);
  ASSERT_NE(window.local(), nullptr);
  EXPECT_EQ(window.remote(me), window.local());
  for (int r = 0; r < P; ++r) {
    EXPECT_NE(window.remote(r), nullptr) << "rank " << r << " is not mapped on rank " << me;
    if (r != me) EXPECT_NE(window.remote(r), window.local());
  }
  EXPECT_EQ(window.view().me, me);
  EXPECT_EQ(window.view().ranks, P);
  const Bytes got = download(window.local(), kWindowBytes), zeros(kWindowBytes, 0);
  EXPECT_EQ(first_difference(got.data(), zeros.data(), kWindowBytes), -1) << "rank " << me;
  EXPECT_EQ(wait_status(window), 0u);
  EXPECT_EQ(window.next_sequence(), 1u);
  EXPECT_EQ(window.next_sequence(), 2u);
}

TEST_F(PeerWindowGpu, KernelStoresReachEveryRankBeforeTheWaitReturns) {
  Context& ctx = test::context();
  const std::size_t chunk = kWindowBytes / static_cast<std::size_t>(ctx.size());
  Stream stream;
  PeerWindow window(ctx, kWindowBytes);
  const auto src = upload_outgoing(chunk, 0, stream);
  launch_scatter(window, src.data(), chunk, 0, 0, stream);
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  // No host barrier: the kernel's wait is what orders the peers' stores before this read.
  const Bytes got = download(window.local(), kWindowBytes);
  expect_received(got.data(), chunk, 0);
  EXPECT_EQ(wait_status(window), 0u) << "rank " << ctx.rank() << ": a wait timed out";
}

TEST_F(PeerWindowGpu, RoundsQueuedBackToBackSeeTheirOwnData) {
  Context& ctx = test::context();
  const std::size_t chunk = kWindowBytes / static_cast<std::size_t>(ctx.size());
  constexpr int kRounds = 5;
  Stream stream;
  // Two halves, used alternately (round parity). A peer passes the wait of round k as soon as
  // this rank has signalled k, possibly before this rank's download of round k has run, so
  // round k + 1 must not store where round k is still to be read. Round k + 2 may reuse the
  // half: a peer reaches it only after this rank's signal of round k + 1, which this rank's
  // stream gives after the download of round k. Odd rounds run one block, which signals
  // without the blocks' arrival count (last_block_done).
  PeerWindow window(ctx, 2 * kWindowBytes);
  std::vector<DeviceBuffer<unsigned char>> src;
  for (int k = 0; k < kRounds; ++k) src.push_back(upload_outgoing(chunk, 10 + k, stream));
  PinnedBuffer<unsigned char> got(kRounds * kWindowBytes);  // pinned: downloads stay asynchronous

  for (int k = 0; k < kRounds; ++k) {
    const std::size_t half = (k % 2) * kWindowBytes;
    launch_scatter(window, src[k].data(), chunk, half, 0, stream, k % 2 ? 1u : kBlocks);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(got.data() + k * kWindowBytes, window.local() + half, kWindowBytes,
                                       cudaMemcpyDeviceToHost, stream));
  }
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (int k = 0; k < kRounds; ++k) expect_received(got.data() + k * kWindowBytes, chunk, 10 + k);
  EXPECT_EQ(wait_status(window), 0u) << "rank " << ctx.rank() << ": a wait timed out";
}

TEST_F(PeerWindowGpu, WaitHoldsForALateRank) {
  Context& ctx = test::context();
  if (ctx.size() == 1) GTEST_SKIP() << "needs a peer";
  const std::size_t chunk = kWindowBytes / static_cast<std::size_t>(ctx.size());
  constexpr unsigned long long kDelayNs = 50'000'000;  // rank 0 stores and signals 50 ms late
  Stream stream;
  PeerWindow window(ctx, kWindowBytes);
  const auto src = upload_outgoing(chunk, 20, stream);
  // Start the kernels together, so the others are already waiting while rank 0 spins.
  TESSERA_MPI_CHECK(MPI_Barrier(ctx.world()));
  launch_scatter(window, src.data(), chunk, 0, ctx.rank() == 0 ? kDelayNs : 0, stream);
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  // A wait that returned early would leave rank 0's region still zero here.
  const Bytes got = download(window.local(), kWindowBytes);
  expect_received(got.data(), chunk, 20);
  EXPECT_EQ(wait_status(window), 0u) << "rank " << ctx.rank() << ": a wait timed out";
}

// TESSERA_RANKS_PER_NODE (comm/context.hpp) makes nodes of its own on one host: a window
// across them is refused with the knob named, as across real nodes, so a cross-node run
// (scripts/gpu-host/cross-node.sh) really takes the transport paths.
TEST(PeerWindowNodes, NoWindowAcrossSimulatedNodes) {
  auto& ctx = test::context();
  if (ctx.simulated_ranks_per_node() == 0 || ctx.peer_node_size() == ctx.size())
    GTEST_SKIP() << "every rank on one node (TESSERA_RANKS_PER_NODE unset or >= the ranks of the host)";
  std::string why;
  EXPECT_FALSE(PeerWindow::available(ctx, &why));
  EXPECT_NE(why.find("TESSERA_RANKS_PER_NODE"), std::string::npos) << why;
  if (ctx.local_size() == ctx.size())  // one host
    EXPECT_EQ(ctx.node_count(), (ctx.size() + ctx.simulated_ranks_per_node() - 1) / ctx.simulated_ranks_per_node());
}

}  // namespace
}  // namespace tessera::comm
