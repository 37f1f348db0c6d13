#pragma once
// The exchanges of the distributed search, on the run's transport (host or device
// memory alike), so the solver needs no collective that comm does not have:
//  - allgather_vertex_array / allgather_bitmap: comm::allgather_blocks of each rank's part of
//    a global array (the frontier bitmap, and the parent and level arrays before validation).
//  - allgather_rows: the level table's rows (backend.hpp), so every rank knows every rank's
//    counts of the step: the global totals and the pairs it is about to receive.
//  - exchange_pairs: an alltoallv of (vertex, parent) pairs from per-destination send
//    regions, with the counts of the (allgathered) level table.
// All are collective and complete when they return (received data is visible to work queued
// on `stream` afterwards). Zero-byte messages are skipped on both sides.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "core/stream.hpp"
#include "solvers/bfs/partition.hpp"

namespace tessera::bfs {

enum ExchangeTag : int { kTagFrontier = 601, kTagParent = 602, kTagLevel = 603, kTagPairs = 604, kTagRows = 605 };

// Byte blocks of the partition for an array of `element_bytes`-sized entries per vertex.
void allgather_vertex_array(comm::Context& ctx, comm::Transport& transport, stream_t stream, std::byte* base,
                            const VertexPartition& part, std::size_t element_bytes, int tag);
// The frontier bitmap: each rank's 64-vertex words.
void allgather_bitmap(comm::Context& ctx, comm::Transport& transport, stream_t stream, std::byte* bitmap,
                      const VertexPartition& part);

// The first `capacity` pairs of every send region, whatever they hold, to the region's rank;
// received into `recv` at slot k * capacity for the k-th other rank in rank order.
struct EagerPairs {
  const std::byte* send = nullptr;
  std::byte* recv = nullptr;
  std::int64_t capacity = 0;
  std::size_t pair_bytes = 0;
};

// The level table (ranks rows of level_row_size(ranks) int64): each rank's row to all; with
// `eager`, the eager pairs travel in the same group.
void allgather_rows(comm::Context& ctx, comm::Transport& transport, stream_t stream, std::byte* table,
                    const VertexPartition& part, const EagerPairs* eager = nullptr);

// Pairs for rank r are table[me][kRowPairs + r]; from rank r come table[r][kRowPairs + me]
// (a host copy of the allgathered table). Moves those after the first `skip` of each region
// (the ones the eager messages did not carry). Returns the number of pairs received (into
// recv, in rank order); throws std::logic_error if they would exceed recv_capacity (a broken
// invariant: each vertex is sent once).
std::int64_t exchange_pairs(comm::Context& ctx, comm::Transport& transport, stream_t stream,
                            std::span<const std::int64_t> table, const std::byte* send, const VertexPartition& part,
                            std::size_t pair_bytes, std::byte* recv, std::int64_t recv_capacity,
                            std::int64_t skip = 0);

}  // namespace tessera::bfs
