#pragma once
// The ring: every rank owns a contiguous block of bodies (block_range). A force pass computes
// the interactions with the block the rank holds while the next block travels one rank along
// the ring (comm::RingShift, on its own stream, so transfer and compute overlap); after P
// blocks every rank has seen all N bodies. Blocks arrive in a fixed order (own block, then
// the one of rank r-1, r-2, ...), and forces accumulate in that order, so the result does not
// depend on timing. One rank is the same code with no shifts.
#include <cstdint>
#include <memory>

#include "comm/context.hpp"
#include "comm/ring_shift.hpp"
#include "comm/transport.hpp"
#include "solvers/nbody/backend.hpp"

namespace tessera::nbody {

template <class T>
class RingForces {
 public:
  // Collective. The ring's buffers hold the largest block (the transport's memory must be the
  // engine's: device transports with the cuda engine, host with the cpu one).
  RingForces(comm::Context& ctx, comm::Transport& transport, std::int64_t n_total);
  ~RingForces();

  // Collective: one force pass on `engine`'s bodies from all n_total bodies.
  void run(Engine<T>& engine, const BlockPass<T>& pass);

  std::int64_t n_total() const { return n_; }

 private:
  comm::Context& ctx_;
  std::int64_t n_;
  std::unique_ptr<comm::RingShift> ring_;  // only with more than one rank
};

}  // namespace tessera::nbody
