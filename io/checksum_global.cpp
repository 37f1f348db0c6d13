// The collective half of io/checksum.hpp, kept apart so the local part has no MPI in it.
#include "comm/collectives.hpp"
#include "io/checksum.hpp"

namespace tessera::io {

std::uint64_t checksum_global(comm::Context& ctx, std::uint64_t local_part) {
  // Unsigned addition wraps: the sum is mod 2^64 whatever order MPI adds the parts in.
  return comm::allreduce(ctx, local_part, comm::Op::sum);
}

}  // namespace tessera::io
