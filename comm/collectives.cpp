#include "comm/collectives.hpp"

#include <algorithm>

namespace tessera::comm {

MPI_Op mpi_op(Op op) {
  switch (op) {
    case Op::sum: return MPI_SUM;
    case Op::min: return MPI_MIN;
    case Op::max: return MPI_MAX;
  }
  return MPI_SUM;
}

void barrier(Context& ctx) {
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Ibarrier(ctx.world(), &req));
  wait(ctx, req);
}

void broadcast(Context& ctx, std::string& text, int root) {
  auto size = static_cast<std::int64_t>(text.size());
  size = broadcast_value(ctx, size, root);
  text.resize(static_cast<std::size_t>(size));
  // Large texts (a deck, never GBs) still fit an int count; chunk anyway to be safe.
  constexpr std::int64_t kChunk = 1 << 30;
  for (std::int64_t off = 0; off < size; off += kChunk) {
    const auto n = std::min(kChunk, size - off);
    broadcast(ctx, std::span<char>(text.data() + off, static_cast<std::size_t>(n)), root);
  }
}

}  // namespace tessera::comm
