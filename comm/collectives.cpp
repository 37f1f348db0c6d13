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

namespace tessera::comm {

std::vector<std::string> gather_text(Context& ctx, const std::string& text, int root) {
  const int len = static_cast<int>(text.size());
  std::vector<int> lens(ctx.rank() == root ? ctx.size() : 0);
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, ctx.world(), &req));
  wait(ctx, req);
  std::vector<int> displs(lens.size());
  int total = 0;
  for (std::size_t r = 0; r < lens.size(); ++r) {
    displs[r] = total;
    total += lens[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  TESSERA_MPI_CHECK(MPI_Igatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, root,
                                 ctx.world(), &req));
  wait(ctx, req);
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lens.size(); ++r) out.push_back(all.substr(displs[r], lens[r]));
  return out;
}

}  // namespace tessera::comm
