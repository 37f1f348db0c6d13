#pragma once
// The distributed search: one level-synchronous loop over the ranks, written once against
// the backend (backend.hpp), with the exchanges of exchange.hpp.
//
// The five search paths, and when each runs (fixed when the driver is made; search() runs it):
//   serial          algorithm serial (cpu backend, one rank): the reference BFS of
//                   reference.hpp, its tree uploaded to the backend (run_serial)
//   edge-parallel   algorithm edge_parallel: the seed's step, any backend; the host waits and
//                   exchanges on the transport every level (run_edge_parallel)
//   host loop over  top_down, bottom_up, direction_optimizing where the GPU does not run the
//   the transport   loop: the cpu backend; cuda on several ranks without peer memory (ranks on
//                   several nodes or sharing a GPU, GPUs that cannot map each other's memory,
//                   bfs.exchange = "transport"); cuda with SearchOptions::device_levels off
//                   (run_levels)
//   host loop over  the same loop where the ranks' GPUs map each other's memory (cuda, one
//   peer memory     node, a GPU per rank) but device_levels is off (run_levels, peer_ set)
//   GPU-run loop    cuda, device_levels on (the default), and one rank or peer memory: the
//                   backend's DeviceLoop, one CUDA graph per search (run_levels_on_device)
//
// Per level, top-down: each rank expands its frontier queue; owned neighbours are claimed
// locally, the others are sent to their owners as (vertex, parent) pairs, who claim them in
// turn. Bottom-up: each rank's unvisited vertices look for a parent in the frontier bitmap
// of all vertices, and the ranks allgather their words of the new frontier.
// Direction-optimizing switches with Beamer's rule (algorithm.hpp).
//
// What a step found travels in the level table (backend.hpp), and the host calls no host
// collective inside the search. Two ways to move it, and the pairs and frontier words:
//  - on the transport: the table is allgathered like the data. The host waits once per
//    bottom-up level and once per top-down level whose pairs fit in the eager messages that
//    travel with the counts (twice when some do not: the rest follow, sized by the counts).
//  - through peer memory (one node, ExchangeMode): top-down writes its pairs straight into
//    their owners' memory and a share kernel passes the rows and waits for the other GPUs'
//    signals, with no NCCL launch.
// Where no level needs the host (cuda on one rank, or with peer memory), the GPU runs the
// level loop itself (SearchBackend::device_loop): one CUDA graph per search, one host
// wait per search. Elsewhere the host drives each level and waits once or twice per level.
// TESSERA_BFS_PROFILE=1 prints where each level's time goes (level_profile.hpp).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "core/backend.hpp"
#include "solvers/bfs/algorithm.hpp"
#include "solvers/bfs/graph.hpp"
#include "solvers/bfs/backend.hpp"
#include "solvers/bfs/level_profile.hpp"
#include "solvers/bfs/tree.hpp"

namespace tessera::bfs {

// How the ranks of a level-synchronous search exchange pairs, counts and frontier words:
//   automatic  the GPUs store into each other's memory when every rank is on one node and can
//              map the others' (comm::PeerWindow), else the transport
//   peer       peer memory wherever the ranks can map each other's (ranks that share a GPU
//              too, slowly: a share waits through the other ranks' time slices; the tests use
//              it to cover this path with one GPU), or an InputError saying why not
//   transport  the run's transport (host-launched groups: NCCL, MPI, ...)
enum class ExchangeMode { automatic, peer, transport };
std::string_view to_string(ExchangeMode m);
ExchangeMode parse_exchange_mode(std::string_view text);  // throws InputError naming the choices

struct SearchOptions {
  Algorithm algorithm = Algorithm::direction_optimizing;
  DirectionPolicy policy;
  // (vertex, parent) pairs per rank that a top-down level sends with its counts, before
  // knowing them (-1: 32768). A level that sends no more needs one host wait, not two.
  std::int64_t eager_pairs = -1;
  ExchangeMode exchange = ExchangeMode::automatic;
  // Let the GPU run the level loop where it can; false: the host drives every level (to compare).
  bool device_levels = true;
  // Delegated hubs (delegates.hpp) for device-driven searches through peer memory: vertices of
  // at least this degree are expanded by every rank (-1: automatic, 0: none). Off by default:
  // on NVLink at Kronecker scale 26 they balance the hub levels but cost as much per level.
  std::int64_t hub_degree = 0;
  // With peer memory, wake the links before each search (PeerExchange::wake_peer_links);
  // false: leave them as they are (to measure what that costs).
  bool wake_links = true;
};

struct SearchResult {
  std::int64_t root = -1;
  double seconds = 0;           // the job's time (slowest rank), reset included
  std::int64_t reached = 0;     // vertices in the root's component
  std::int64_t input_edges = 0; // Graph500's count: input edges in the component
  int depth = 0;                // largest level
  int top_down_levels = 0, bottom_up_levels = 0;
  double teps() const { return seconds > 0 ? static_cast<double>(input_edges) / seconds : 0.0; }
};

class SearchDriver {
 public:
  // Collective. `graph` must outlive the driver. Throws InputError for an algorithm the
  // backend or rank count cannot run (serial: cpu, one rank).
  SearchDriver(comm::Context& ctx, comm::Transport& transport, const LocalGraph& graph, Backend backend,
               SearchOptions options);

  // Collective: one timed search from `root` (a global id, any rank may own it). The clock
  // starts after the ranks have met (and learnt the root's degree) and stops when the last
  // rank has finished its last level.
  SearchResult search(std::int64_t root);

  // This rank's window of the last search's tree (global ids), or all of it on every rank.
  BfsTree local_tree();
  BfsTree global_tree();  // collective
  // Collective: completes the global parent and level arrays on every rank.
  void gather_tree();

  // Per-level timing of the following searches (on by default when TESSERA_BFS_PROFILE is set).
  void set_profiling(bool on) { profile_.set_on(on); }

  SearchBackend& backend() { return *backend_; }
  const LocalGraph& graph() const { return graph_; }
  comm::Context& context() { return ctx_; }
  comm::Transport& transport() { return transport_; }
  const SearchOptions& options() const { return options_; }
  // Whether the searches exchange through peer memory (else the transport), and why.
  bool exchanges_on_device() const { return peer_ != nullptr; }
  const std::string& exchange_reason() const { return exchange_reason_; }
  // Whether the GPU runs the level loop (one graph per search) rather than the host; its
  // DeviceLoop (the levels' clocks of the last search, say), null where the host runs them.
  bool levels_on_device() const { return device_loop_ != nullptr; }
  DeviceLoop* device_loop() { return device_loop_; }
  Backend backend_kind() const { return kind_; }
  // The delegated hubs the searches expand on every rank (0: none), and their degree.
  std::int64_t delegated_hubs() const { return delegated_hubs_; }
  std::int64_t hub_degree() const { return hub_degree_; }

 private:
  // Peer memory or the transport, by options_.exchange (collective).
  void choose_exchange();
  void run_levels(std::int64_t root, std::int64_t root_degree, SearchResult& r);
  void run_levels_on_device(std::int64_t root, std::int64_t root_degree, SearchResult& r);
  // Every rank's row of the level table to every rank (peer memory or the transport; nothing
  // with one rank), queued.
  void exchange_rows();
  // exchange_rows, then the host copy (waits).
  std::span<const std::int64_t> level_counts();
  void allgather_frontier();
  void run_edge_parallel(std::int64_t root, SearchResult& r);
  void run_serial(std::int64_t root, SearchResult& r);

  comm::Context& ctx_;
  comm::Transport& transport_;
  const LocalGraph& graph_;
  Backend kind_;
  SearchOptions options_;
  std::unique_ptr<SearchBackend> backend_;
  // The backend's optional parts in use: the peer exchange once use_peer_memory succeeded
  // (else null: the transport), the device loop where the GPU runs the levels (else null).
  PeerExchange* peer_ = nullptr;
  DeviceLoop* device_loop_ = nullptr;
  LevelProfile profile_;
  std::string exchange_reason_;
  std::int64_t delegated_hubs_ = 0, hub_degree_ = 0;
};

}  // namespace tessera::bfs
