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
void SearchKernels::begin_levels(std::int64_t, std::int64_t, Algorithm, const DirectionPolicy&) {
  throw std::logic_error("bfs: begin_levels() on kernels that cannot drive the levels");
}
void SearchKernels::queue_levels() { throw std::logic_error("bfs: queue_levels() on kernels that cannot drive the levels"); }
LevelState SearchKernels::level_state() { throw std::logic_error("bfs: level_state() on kernels that cannot drive the levels"); }

}  // namespace tessera::bfs
