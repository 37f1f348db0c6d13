#pragma once
// The backend: the interface the search driver (search.hpp) and the validation call, with the
// per-rank building blocks of the distributed search; cpu/ (OpenMP) and cuda/ implement it.
// The level loop (search.cpp) and the exchanges between ranks (exchange.cpp) are written once
// against it, Ginkgo style.
//
//   SearchBackend  the core steps, which every backend implements
//   PeerExchange   optional: device-initiated exchanges through peer memory (cuda)
//   DeviceLoop     optional: the level loop run by the GPU (cuda, where no level needs the host)
// SearchBackend::peer_exchange() and device_loop() return the optional parts, or null where a
// backend lacks them (always on the cpu), so no backend implements what it cannot do.
//
// State on each rank, in the backend's memory (host or device):
//   parent, level   global-sized arrays (int64, int32); a search writes this rank's window
//                   [begin, begin + count), validation fills the rest by an allgather
//   visited         bitmap of the owned vertices
//   frontier        bitmap of all vertices (bottom-up reads it whole; each rank writes its
//                   own 64-vertex-aligned words and the ranks allgather them)
//   queue, next     frontier queues of owned vertices (local ids)
//   send pairs      (vertex, parent) discovered for other ranks; the region of rank r starts
//                   at pair index partition.range(r).begin and holds at most its vertex count,
//                   since a `sent` bitmap lets each remote vertex be sent once per search
//                   (eager_capacity() pairs of slack follow the last region)
//   receive pairs   what other ranks discovered for this one
//   eager pairs     the first eager_capacity() pairs of each other rank's region for this
//                   one, received with the level table (fixed-size messages: no counts first)
//   level table     one row per rank: what a step found (vertices, their edges) and the
//                   pairs it wrote for each rank. A step writes this rank's row; the ranks
//                   allgather the rows on the transport, so one host wait per step gives the
//                   global totals and the pair counts to receive (no host collective).
// Pairs are pair_bytes() each: two uint32 on cuda (ids < 2^32), two int64 on cpu.
//
// The level steps (top_down, apply_received, bottom_up, ...) are queued on stream() and
// return at once; their counts are read from the level table (fetch, then wait; two host
// copies, so two tables of one level can be fetched before one wait).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "core/stream.hpp"
#include "solvers/bfs/algorithm.hpp"
#include "solvers/bfs/graph.hpp"

namespace tessera::bfs {

// The level table: rows of level_row_size(ranks) int64 values.
inline constexpr int kRowFound = 0;   // vertices claimed by the step
inline constexpr int kRowEdges = 1;   // the sum of their degrees
inline constexpr int kRowHubs = 2;    // delegated hubs among them (the cuda device loop's last share)
inline constexpr int kRowPairs = 3;   // kRowPairs + r: (vertex, parent) pairs written for rank r
inline constexpr std::int64_t level_row_size(int ranks) { return kRowPairs + ranks; }

struct Reached {
  std::int64_t vertices = 0;
  std::int64_t input_degree = 0;
};

// Where a device-driven search stands (DeviceLoop::level_state).
struct LevelState {
  bool done = false;
  int level = 0;  // the next level to run; once done, the last one run (the search's depth)
  int top_down_levels = 0, bottom_up_levels = 0;
};

// A device-driven level's time by its GPU's clock (the profile of such searches), in ms.
struct LevelClock {
  int level = 0;
  bool bottom_up = false;
  std::int64_t vertices = 0, edges = 0;  // the frontier it expanded
  double steps = 0;        // the rank's own kernels
  double shares[2] = {};   // its first and last share: moving rows and words, waiting for the other ranks
  double waits[2] = {};    // of which waiting for the other ranks' signals (after its own)
  double conclude = 0;     // the decision on the GPU (conclude_level)
  double start = 0;        // the level's start on the GPU's global clock (ms; GPUs of a node roughly agree)
};

// The five Graph500 checks, in the order of the specification.
enum Check { kTree = 0, kLevels, kEdgeLevels, kSpanning, kParentEdges, kChecks };

// Violations of each check among this rank's vertices and edges, and the smallest global id
// of an offending vertex (INT64_MAX when none).
struct CheckCounts {
  std::array<std::int64_t, kChecks> count{};
  std::array<std::int64_t, kChecks> first{};
};

class PeerExchange;
class DeviceLoop;

// The core steps.
class SearchBackend {
 public:
  virtual ~SearchBackend() = default;
  virtual stream_t stream() const = 0;

  // parent/level windows to -1, bitmaps cleared, queues emptied.
  virtual void reset() = 0;
  // The same before a level-loop search (whose steps claim through the visited bitmap and read
  // no parent or level): a backend may leave the last tree's entries in the windows, for
  // finish_search to clear those the new tree does not overwrite.
  virtual void reset_for_claims() { reset(); }
  // Queued after a search's last step: the windows hold its tree and -1 everywhere else.
  virtual void finish_search() {}
  // The owner of `root` marks it (level 0, its own parent) and queues it; others do nothing.
  virtual void start(std::int64_t root) = 0;

  // Top-down over the frontier queue: owned neighbours are claimed into the next queue,
  // others are written to the send regions. This rank's row: found, edges, pairs per rank.
  virtual void top_down(int level) = 0;
  // Claims the eager pairs like owned discoveries (appended to the next queue): from each
  // rank r, min(its count for this rank in the (allgathered) level table, eager_capacity())
  // pairs. This rank's row: found and edges of these claims only.
  virtual void apply_eager(int level) = 0;
  // The same for `count` received pairs (those the eager messages did not carry), after
  // apply_eager of the same level: found and edges are added to the row's.
  virtual void apply_received(int level, std::int64_t count) = 0;
  // The next queue, holding `count` vertices, becomes the frontier.
  virtual void swap_queues(std::int64_t count) = 0;

  // The frontier queue as this rank's words of the frontier bitmap.
  virtual void queue_to_bitmap() = 0;
  // Bottom-up: every unvisited owned vertex looks for a neighbour in the (whole) frontier
  // bitmap; the vertices found this level then replace this rank's words of the frontier.
  // This rank's row: found, edges.
  virtual void bottom_up(int level) = 0;
  // This rank's words of the frontier bitmap (holding `count` vertices) as the frontier queue.
  virtual void bitmap_to_queue(std::int64_t count) = 0;

  // The seed's level step: every owned edge (u, w) with level[u] == level and w unreached
  // reaches w (plain writes, benign races, as in the seed); remote w go to the send regions
  // (this rank's row: pairs per rank). Waits, and returns whether anything was reached (the
  // seed's `done` flag, inverted).
  virtual bool edge_parallel(int level) = 0;
  virtual bool apply_received_plain(int level, std::int64_t count) = 0;

  // The level table (ranks rows of level_row_size(ranks) int64, in the backend's memory).
  virtual std::byte* level_table() = 0;
  // Queues a copy of the table to host copy `slot` (0 or 1) after the work queued so far;
  // wait_level_table(slot) waits for that copy (not for work queued after it) and returns it.
  virtual void fetch_level_table(int slot = 0) = 0;
  virtual std::span<const std::int64_t> wait_level_table(int slot = 0) = 0;

  // Buffers the exchanges move.
  virtual std::size_t pair_bytes() const = 0;
  virtual std::byte* send_pairs() = 0;
  virtual std::byte* receive_pairs() = 0;
  virtual std::int64_t receive_capacity() const = 0;  // pairs
  virtual std::int64_t eager_capacity() const = 0;    // pairs per rank (0 with one rank)
  virtual std::byte* eager_receive() = 0;              // (ranks - 1) * eager_capacity() pairs, rank order
  virtual std::byte* frontier_bitmap() = 0;           // global, partition.words() * 8 bytes
  virtual std::byte* parent_global() = 0;             // int64[n]
  virtual std::byte* level_global() = 0;              // int32[n]

  // Owned vertices reached, and the sum of their input degrees (Graph500's edge count, twice).
  virtual Reached reached() = 0;
  // This rank's window of the arrays, or (after an allgather) the whole of them.
  virtual void download_window(std::span<std::int64_t> parent, std::span<std::int32_t> level) = 0;
  virtual void download_global(std::span<std::int64_t> parent, std::span<std::int32_t> level) = 0;
  // Replaces this rank's window (the serial search's result; broken trees in tests).
  virtual void upload_window(std::span<const std::int64_t> parent, std::span<const std::int32_t> level) = 0;

  // The five checks of the tree of `root` over this rank's vertices and edges; needs the
  // global parent and level arrays complete (validate.cpp gathers them first).
  virtual CheckCounts check(std::int64_t root) = 0;

  // Waits for the work queued on stream().
  virtual void synchronize() = 0;

  // The optional parts (null where this backend has none; see below). The peer exchange is
  // offered by every backend that has one; the device loop only while it can run a search
  // (cuda: on one rank, or once use_peer_memory has succeeded).
  virtual PeerExchange* peer_exchange() { return nullptr; }
  virtual DeviceLoop* device_loop() { return nullptr; }
};

// Device-initiated exchanges (cuda, all ranks on one node: comm::PeerWindow). After
// use_peer_memory the kernels move data between ranks themselves: top_down writes its pairs
// straight into their owners' receive areas, and share() replaces allgather_rows and the
// frontier allgather, with no host wait and no message sizes on the host. The driver calls
// the other members only once use_peer_memory has returned true.
class PeerExchange {
 public:
  // Collective. False, with the reason in `why`, where the window cannot be made (the kernels
  // then keep the transport's buffers); a failure after that throws (agreed).
  virtual bool use_peer_memory(comm::Context& ctx, std::string* why) = 0;
  // Queued before a search's first exchange: with peer memory, 1 MiB into every other rank's
  // receive area. NVLink links that idled (while a search was validated, say) wake slowly
  // (their low-power state): each fence of the next search's first levels, which send a few
  // bytes, then waited ~0.1 ms on 2 H200s; this traffic wakes every link before the clock starts.
  virtual void wake_peer_links() = 0;
  // Collective, queued: with `frontier`, this rank's words of the frontier bitmap to every
  // rank; then this rank's row to every rank's copy of the table, and a wait on the device
  // until every rank's row has arrived. fetch_level_table copies the table of the last share.
  virtual void share(bool frontier) = 0;
  // Claims the pairs the other ranks wrote here in this level's top_down (their counts come
  // from the table of the last share), `bound` at most in all (the frontier's edges), like
  // apply_eager: this rank's row holds found and edges of these claims only.
  virtual void apply_shared(int level, std::int64_t bound) = 0;

 protected:
  ~PeerExchange() = default;  // a part of a SearchBackend, which owns it
};

// Device-driven searches (cuda on one rank, or with peer memory): the GPU keeps the level
// loop's state (direction, frontier sizes, the end) and decides each level from the level
// table where the counts are, so the host queues a whole search and waits once, not once
// per level. Until a search has ended, the host may queue no other steps.
class DeviceLoop {
 public:
  // Queued after reset(): the owner of `root` marks it, and every rank sets out the loop's
  // state (root_degree: the root's degree, known to every rank).
  virtual void begin_levels(std::int64_t root, std::int64_t root_degree, Algorithm algorithm,
                            const DirectionPolicy& policy) = 0;
  // Queues the rest of the search.
  virtual void queue_levels() = 0;
  // Waits for the levels queued so far; throws if a share's wait timed out.
  virtual LevelState level_state() = 0;
  // After level_state() at the end of a search this loop ran: its levels' times (the first 64).
  virtual std::vector<LevelClock> level_clocks() = 0;

 protected:
  ~DeviceLoop() = default;  // a part of a SearchBackend, which owns it
};

// `eager`: pairs per rank sent with the level counts (0 with one rank).
std::unique_ptr<SearchBackend> make_cpu_engine(const LocalGraph& graph, std::int64_t eager);
#if defined(TESSERA_HAVE_CUDA)
struct Delegates;
// Copies the graph to the device (ids must be < 2^32: InputError otherwise), and the delegated
// hubs (delegates.hpp; empty: none), which device-driven searches through peer memory expand.
std::unique_ptr<SearchBackend> make_cuda_engine(const LocalGraph& graph, std::int64_t eager,
                                                 const Delegates& delegates);
#endif

}  // namespace tessera::bfs
