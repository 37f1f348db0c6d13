#include "solvers/bfs/kernels.hpp"

#include <stdexcept>

namespace tessera::bfs {

// Backends without device-initiated exchanges (cpu) never get here: the search asks
// exchanges_itself() first, and the engine offers peer memory to cuda kernels only.
bool SearchKernels::use_peer_memory(comm::Context&, std::string*) {
  throw std::logic_error("bfs: these search kernels exchange through the transport only");
}
void SearchKernels::share(bool) { throw std::logic_error("bfs: share() without peer memory"); }
void SearchKernels::apply_shared(int, std::int64_t) { throw std::logic_error("bfs: apply_shared() without peer memory"); }

}  // namespace tessera::bfs
