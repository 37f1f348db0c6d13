#pragma once
// The distributed graph: each rank holds the CSR rows of the vertices it owns (1D block
// partition, solvers/bfs/partition.hpp). Rows list global neighbour ids, sorted, without
// self-loops or repeats: that is the graph the searches traverse. The input as given
// (repeats and self-loops included) survives only as `input_degree`, the number of input
// edge endpoints at each vertex, which is what Graph500 counts for TEPS: the input edges of
// a component are the sum of its vertices' input degrees over two.
#include <cstdint>
#include <span>
#include <vector>

#include "comm/context.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/partition.hpp"

namespace tessera::bfs {

struct LocalGraph {
  VertexPartition partition;
  int rank = 0;
  std::int64_t begin = 0;  // owned vertices are [begin, begin + count)
  std::int64_t count = 0;

  std::vector<std::int64_t> offsets;       // count + 1 row offsets into columns
  std::vector<std::int64_t> columns;       // global neighbour ids, sorted within each row
  std::vector<std::int64_t> input_degree;  // input edge endpoints at each owned vertex

  // Global totals (the same on every rank).
  std::int64_t input_edges = 0;     // edges as given, each undirected edge once
  std::int64_t self_loops = 0;      // of those, edges (v, v)
  std::int64_t directed_edges = 0;  // CSR entries over all ranks (each kept edge twice)

  std::int64_t vertices() const { return partition.n; }
  std::int64_t local_entries() const { return static_cast<std::int64_t>(columns.size()); }
  std::int64_t degree(std::int64_t local) const { return offsets[local + 1] - offsets[local]; }
  bool owns(std::int64_t v) const { return v >= begin && v < begin + count; }
};

// The CSR of rows [begin, begin + count) from directed entries given as interleaved
// (source, target) pairs, all sources in the range: counts input degrees, groups by source,
// then sorts each row and drops repeats and self-loops. Leaves totals at zero. Takes the
// pairs by value and frees them as soon as they are grouped (they are the largest array).
LocalGraph csr_from_entries(VertexPartition partition, int rank, std::vector<std::int64_t> pairs);

// Collective: builds this rank's part of the undirected graph of `source`'s edges over all
// ranks. Edges travel to the owners of both endpoints through comm::alltoallv, in rounds of
// at most `chunk_edges` edges per rank (bounded memory and MPI counts).
LocalGraph build_graph(comm::Context& ctx, const EdgeSource& source, std::int64_t chunk_edges = std::int64_t{1} << 22);

// The whole graph on one process (for references in tests and the serial search).
LocalGraph build_serial_graph(std::int64_t n, std::span<const Edge> edges);

}  // namespace tessera::bfs
