#pragma once
// Host-side collectives over ctx.world(). Each is a non-blocking MPI collective completed by
// comm::wait, so a rank waiting here notices a failure announced by another rank instead of
// hanging. Counts and values are 64-bit where they can exceed 2^31.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/errors.hpp"
#include "comm/mpi_types.hpp"

namespace tessera::comm {

enum class Op { sum, min, max };
MPI_Op mpi_op(Op op);

void barrier(Context& ctx);

template <class T>
void allreduce_inplace(Context& ctx, std::span<T> values, Op op) {
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), mpi_type<T>(),
                                   mpi_op(op), ctx.world(), &req));
  wait(ctx, req);
}

template <class T>
T allreduce(Context& ctx, T value, Op op = Op::sum) {
  allreduce_inplace(ctx, std::span<T>(&value, 1), op);
  return value;
}

// Exclusive prefix sum over ranks; rank 0 gets T{} (MPI leaves it undefined).
template <class T>
T exscan(Context& ctx, T value) {
  T out{};
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Iexscan(&value, &out, 1, mpi_type<T>(), MPI_SUM, ctx.world(), &req));
  wait(ctx, req);
  return ctx.rank() == 0 ? T{} : out;
}

template <class T>
std::vector<T> allgather(Context& ctx, T value) {
  std::vector<T> out(static_cast<std::size_t>(ctx.size()));
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Iallgather(&value, 1, mpi_type<T>(), out.data(), 1, mpi_type<T>(), ctx.world(), &req));
  wait(ctx, req);
  return out;
}

template <class T>
void broadcast(Context& ctx, std::span<T> values, int root = 0) {
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Ibcast(values.data(), static_cast<int>(values.size()), mpi_type<T>(), root, ctx.world(), &req));
  wait(ctx, req);
}
void broadcast(Context& ctx, std::string& text, int root = 0);

template <class T>
T broadcast_value(Context& ctx, T value, int root = 0) {
  broadcast(ctx, std::span<T>(&value, 1), root);
  return value;
}

// Personalised all-to-all: send_counts[r] elements of `send` (in rank order) go to rank r.
// Returns the received elements in rank order; recv_counts receives the per-rank counts.
template <class T>
std::vector<T> alltoallv(Context& ctx, std::span<const T> send, std::span<const std::int64_t> send_counts,
                         std::vector<std::int64_t>* recv_counts = nullptr);

}  // namespace tessera::comm

#include "comm/collectives_impl.hpp"

namespace tessera::comm {
// Gathers one text per rank on `root` (in rank order); other ranks get an empty vector.
std::vector<std::string> gather_text(Context& ctx, const std::string& text, int root = 0);
}  // namespace tessera::comm
