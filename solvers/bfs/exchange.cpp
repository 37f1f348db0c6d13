#include "solvers/bfs/exchange.hpp"

#include <stdexcept>

#include "comm/allgather.hpp"

#include "solvers/bfs/backend.hpp"

namespace tessera::bfs {

void allgather_vertex_array(comm::Context& ctx, comm::Transport& transport, stream_t stream, std::byte* base,
                            const VertexPartition& part, std::size_t element_bytes, int tag) {
  std::vector<std::int64_t> offsets, lengths;
  for (int r = 0; r < part.parts; ++r) {
    const Range range = part.range(r);
    offsets.push_back(range.begin * static_cast<std::int64_t>(element_bytes));
    lengths.push_back(range.count * static_cast<std::int64_t>(element_bytes));
  }
  comm::allgather_blocks(ctx, transport, stream, base, offsets, lengths, tag);
}

void allgather_bitmap(comm::Context& ctx, comm::Transport& transport, stream_t stream, std::byte* bitmap,
                      const VertexPartition& part) {
  std::vector<std::int64_t> offsets, lengths;
  for (int r = 0; r < part.parts; ++r) {
    const Range words = block_range(part.words(), part.parts, r);
    offsets.push_back(words.begin * 8);
    lengths.push_back(words.count * 8);
  }
  comm::allgather_blocks(ctx, transport, stream, bitmap, offsets, lengths, kTagFrontier);
}

void allgather_rows(comm::Context& ctx, comm::Transport& transport, stream_t stream, std::byte* table,
                    const VertexPartition& part, const EagerPairs* eager) {
  const int p = ctx.size(), me = ctx.rank();
  if (p == 1) return;
  const std::size_t row_bytes = static_cast<std::size_t>(level_row_size(p)) * sizeof(std::int64_t);
  std::vector<comm::Message> sends, recvs;
  for (int r = 0, k = 0; r < p; ++r) {
    if (r == me) continue;
    sends.push_back({table + me * row_bytes, row_bytes, r, kTagRows});
    recvs.push_back({table + r * row_bytes, row_bytes, r, kTagRows});
    if (eager && eager->capacity > 0) {
      const std::size_t bytes = static_cast<std::size_t>(eager->capacity) * eager->pair_bytes;
      sends.push_back({const_cast<std::byte*>(eager->send) + part.range(r).begin * static_cast<std::int64_t>(eager->pair_bytes),
                       bytes, r, kTagPairs});
      recvs.push_back({eager->recv + k * bytes, bytes, r, kTagPairs});
    }
    ++k;
  }
  transport.start(sends, recvs, stream)->finish();
}

std::int64_t exchange_pairs(comm::Context& ctx, comm::Transport& transport, stream_t stream,
                            std::span<const std::int64_t> table, const std::byte* send, const VertexPartition& part,
                            std::size_t pair_bytes, std::byte* recv, std::int64_t recv_capacity, std::int64_t skip) {
  const int p = ctx.size(), me = ctx.rank();
  const std::int64_t row = level_row_size(p);
  const auto bytes = [&](std::int64_t pairs) { return static_cast<std::size_t>(pairs) * pair_bytes; };
  std::vector<comm::Message> sends, recvs;
  std::int64_t at = 0;
  for (int r = 0; r < p; ++r) {
    if (r == me) continue;
    const std::int64_t out = table[me * row + kRowPairs + r] - skip, in = table[r * row + kRowPairs + me] - skip;
    if (out > 0)
      sends.push_back({const_cast<std::byte*>(send) + bytes(part.range(r).begin + skip), bytes(out), r, kTagPairs});
    if (in > 0) {
      if (at + in > recv_capacity)
        throw std::logic_error("bfs: more (vertex, parent) pairs received than a rank owns vertices");
      recvs.push_back({recv + bytes(at), bytes(in), r, kTagPairs});
      at += in;
    }
  }
  transport.start(sends, recvs, stream)->finish();
  return at;
}

}  // namespace tessera::bfs
