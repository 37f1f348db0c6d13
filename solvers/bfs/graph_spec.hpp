#pragma once
// The [bfs.graph] table: which graph to search (generated or read) and how it was built.
#include <cstdint>
#include <string>

#include "comm/context.hpp"
#include "core/deck/config.hpp"
#include "core/deck/schema.hpp"
#include "solvers/bfs/graph.hpp"
#include "solvers/bfs/kronecker.hpp"

namespace tessera::bfs {

enum class GraphSource { kronecker, matrix_market, edge_list };

struct GraphSpec {
  GraphSource source = GraphSource::kronecker;
  KroneckerSpec kronecker;
  std::string file;
  int index_base = 0;
  std::int64_t vertices = 0;  // edge lists: 0 = largest id + 1
};

// Declares [bfs.graph] (the [bfs] table must exist).
void add_graph_schema(deck::Schema& schema);
// Reads and cross-checks [bfs.graph]; InputError naming the deck key.
GraphSpec graph_spec_from_deck(const deck::Config& deck);

struct BuiltGraph {
  LocalGraph graph;
  std::string description;
  double read_seconds = 0;          // reading a file (a Kronecker graph is generated during construction)
  double construction_seconds = 0;  // generation, redistribution and CSR
};

// Collective: generates or reads the edges and builds the distributed CSR.
BuiltGraph build_graph_from_spec(comm::Context& ctx, const GraphSpec& spec);

}  // namespace tessera::bfs
