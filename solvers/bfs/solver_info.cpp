#include "solvers/bfs/solver_info.hpp"

#include <cmath>

#include "solvers/bfs/algorithm.hpp"
#include "solvers/bfs/bfs_solver.hpp"
#include "solvers/bfs/graph_spec.hpp"

namespace tessera::bfs {
namespace {

// A Kronecker graph's size follows from the deck; a file's is checked when it is read.
std::optional<MemoryEstimate> memory(const deck::Deck& d, Backend backend) {
  if (d.get_string("bfs.graph.source") != "kronecker") return std::nullopt;
  const double vertices = std::ldexp(1.0, static_cast<int>(d.get_int("bfs.graph.scale")));
  const double edges = vertices * static_cast<double>(d.get_int("bfs.graph.edgefactor"));
  const bool cuda = backend == Backend::cuda;
  return MemoryEstimate{"bfs.graph.scale",
                        [=](double ranks) { return graph_memory(vertices, edges, ranks, cuda); }};
}

}  // namespace

deck::Schema schema() {
  deck::Schema s;
  s.table("bfs", "distributed breadth-first search; one step searches from one root")
      .choice("algorithm", "the search: direction_optimizing, top_down, bottom_up, edge_parallel (the seed's O(VE) "
                           "baseline) or serial (cpu, one rank)",
              algorithm_names())
      .default_value("direction_optimizing")
      .floating("alpha", "direction_optimizing: go bottom-up when the frontier grows and its edges exceed the unexplored edges / alpha")
      .greater_than(0).default_value(14.0)
      .floating("beta", "direction_optimizing: go back top-down when the frontier shrinks below vertices / beta vertices")
      .greater_than(0).default_value(24.0)
      .choice("exchange", "how the GPUs of a level-synchronous search exchange pairs, counts and frontier words: "
                          "auto (peer memory when every rank is on one node with a GPU of its own that can map the "
                          "others' memory, else the transport), peer (peer memory or an error saying why not; ranks "
                          "that share a GPU may use it, slowly: each wait spins through the other ranks' time "
                          "slices), or transport",
              {"auto", "peer", "transport"})
      .default_value("auto")
      .integer("hub_degree", "cuda, several GPUs exchanging through peer memory: vertices of at least this degree "
                             "(hubs) are expanded top-down by every GPU, each over the hub's edges to its own "
                             "vertices, which balances the levels of hubs (-1: the lowest power of two >= 256 with "
                             "at most 131072 hubs; 0: none, the default)")
      .min(-1).default_value(0)
      .integer_array("roots", "the roots to search from (0-based vertex ids), one step each").min(0).optional()
      .boolean("graph500", "Graph500 mode: root_count random roots of degree >= 1, every search validated, TEPS "
                           "statistics")
      .default_value(false)
      .integer("root_count", "Graph500 mode: number of roots").min(1).max(1 << 20).default_value(64)
      .integer("root_seed", "Graph500 mode: seed of the root sample").min(0).default_value(2)
      .boolean("validate", "check every search with the five Graph500 checks (a failure ends the run)").default_value(true)
      .integer("trees", "write the parent and level arrays of the first this many searches (-1: all)").min(-1)
      .default_value(-1);
  add_graph_schema(s);
  return s;
}

SolverInfo solver_info() {
  SolverInfo info;
  info.name = "bfs";
  info.description = "distributed breadth-first search with Graph500 validation (TEPS)";
  info.format_version = 1;
  info.schema = schema;
  info.create = [](RunContext& run) -> std::unique_ptr<Solver> { return std::make_unique<BfsSolver>(run); };
  info.bench = bench;
  // Outputs and tuning: they change how the run is computed or written, not what it computes.
  info.restart_may_change = {"bfs.trees", "bfs.validate", "bfs.algorithm", "bfs.alpha", "bfs.beta", "bfs.exchange", "bfs.hub_degree"};
  info.memory = memory;
  return info;
}

}  // namespace tessera::bfs
