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
#include "comm/memory.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/host_array.hpp"
#include "solvers/bfs/partition.hpp"

namespace tessera::bfs {

struct LocalGraph {
  VertexPartition partition;
  int rank = 0;
  std::int64_t begin = 0;  // owned vertices are [begin, begin + count)
  std::int64_t count = 0;

  HostArray<std::int64_t> offsets;       // count + 1 row offsets into columns
  HostArray<std::int64_t> columns;       // global neighbour ids, sorted within each row
  HostArray<std::int64_t> input_degree;  // input edge endpoints at each owned vertex

  // Global totals (the same on every rank).
  std::int64_t input_edges = 0;     // edges as given, each undirected edge once
  std::int64_t self_loops = 0;      // of those, edges (v, v)
  std::int64_t directed_edges = 0;  // CSR entries over all ranks (each kept edge twice)

  std::int64_t vertices() const { return partition.n; }
  std::int64_t local_entries() const { return static_cast<std::int64_t>(columns.size()); }
  std::int64_t degree(std::int64_t local) const { return offsets[local + 1] - offsets[local]; }
  bool owns(std::int64_t v) const { return v >= begin && v < begin + count; }
};

// Collective: builds this rank's part of the undirected graph of `source`'s edges over all
// ranks. Edges are pulled from the source in rounds of at most `chunk_edges` per rank
// (bounded memory and MPI counts); with several ranks each round's entries travel to the
// owners of their sources through comm::alltoallv. Each rank groups the entries it owns by
// blocks ("buckets") of `bucket_rows` rows (rounded up to a power of two from 64 to 65536;
// 0: as many rows as hold about 2^18 entries, so a bucket is sorted in cache), then builds
// each bucket's rows on one thread: input degrees, a radix sort of the entries by target and
// a stable counting sort by row, then repeats and the self-loop dropped. Every stage runs on
// all OpenMP threads. The result does not depend on the chunk or bucket size, nor on the
// thread or rank count. `columns` keeps the capacity of all entries (repeats included).
LocalGraph build_graph(comm::Context& ctx, const EdgeSource& source, std::int64_t chunk_edges = std::int64_t{1} << 22,
                       std::int64_t bucket_rows = 0);

// columns[first, first + out.size()) as 32-bit ids (all ids must be below 2^32), in parallel:
// the cuda backend stages its copy of the graph through this.
void narrow_columns(const LocalGraph& g, std::int64_t first, std::span<std::uint32_t> out);

// The whole graph on one process (for references in tests and the serial search).
LocalGraph build_serial_graph(std::int64_t n, std::span<const Edge> edges);

// At least what one rank of `ranks` holds for a graph of `vertices` and `edges` input edges:
// the CSR columns (each edge twice, 8-byte ids, repeats kept until the rows are built) and two
// 8-byte numbers per owned vertex; the cuda backend adds 32-bit columns and a bitmap of all
// vertices on the GPU. Used before a graph is built (comm::require_memory).
comm::MemoryNeed graph_memory(double vertices, double edges, double ranks, bool cuda);

}  // namespace tessera::bfs
