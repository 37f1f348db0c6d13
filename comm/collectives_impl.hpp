#pragma once
// Template bodies of comm/collectives.hpp that are too long to read inline there.
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace tessera::comm {

namespace detail {
// MPI-3 counts are int: refuse (clearly) rather than overflow silently.
inline int checked_count(std::int64_t n, const char* what) {
  if (n < 0 || n > std::numeric_limits<int>::max())
    throw std::length_error(fmt::format("alltoallv: {} of {} elements exceeds MPI's int count limit", what, n));
  return static_cast<int>(n);
}
}  // namespace detail

template <class T>
std::vector<T> alltoallv(Context& ctx, std::span<const T> send, std::span<const std::int64_t> send_counts,
                         std::vector<std::int64_t>* recv_counts_out) {
  const int p = ctx.size();
  if (static_cast<int>(send_counts.size()) != p)
    throw std::invalid_argument(fmt::format("alltoallv: {} send counts for {} ranks", send_counts.size(), p));
  const std::int64_t total = std::accumulate(send_counts.begin(), send_counts.end(), std::int64_t{0});
  if (total != static_cast<std::int64_t>(send.size()))
    throw std::invalid_argument(fmt::format("alltoallv: send counts sum to {} but {} elements given", total, send.size()));

  // Exchange the counts first (64-bit), then the data.
  std::vector<std::int64_t> recv_counts(static_cast<std::size_t>(p));
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Ialltoall(send_counts.data(), 1, MPI_INT64_T, recv_counts.data(), 1, MPI_INT64_T,
                                  ctx.world(), &req));
  wait(ctx, req);

  std::vector<int> sc(p), sd(p), rc(p), rd(p);
  std::int64_t soff = 0, roff = 0;
  for (int r = 0; r < p; ++r) {
    sc[r] = detail::checked_count(send_counts[r], "a send count");
    rc[r] = detail::checked_count(recv_counts[r], "a receive count");
    sd[r] = detail::checked_count(soff, "a send displacement");
    rd[r] = detail::checked_count(roff, "a receive displacement");
    soff += send_counts[r];
    roff += recv_counts[r];
  }
  std::vector<T> recv(static_cast<std::size_t>(roff));
  TESSERA_MPI_CHECK(MPI_Ialltoallv(send.data(), sc.data(), sd.data(), mpi_type<T>(), recv.data(), rc.data(),
                                   rd.data(), mpi_type<T>(), ctx.world(), &req));
  wait(ctx, req);
  if (recv_counts_out) *recv_counts_out = std::move(recv_counts);
  return recv;
}

}  // namespace tessera::comm
