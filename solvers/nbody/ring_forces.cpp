#include "solvers/nbody/ring_forces.hpp"

#include "core/partition.hpp"
#include "core/profile.hpp"

namespace tessera::nbody {

template <class T>
RingForces<T>::RingForces(comm::Context& ctx, comm::Transport& transport, std::int64_t n_total)
    : ctx_(ctx), n_(n_total) {
  if (ctx.size() > 1) {
    const std::int64_t largest = block_range(n_total, ctx.size(), 0).count;  // block 0 is never smaller
    ring_ = std::make_unique<comm::RingShift>(ctx, transport, static_cast<std::size_t>(largest) * sizeof(Vec4<T>));
  }
}

template <class T>
RingForces<T>::~RingForces() = default;

template <class T>
void RingForces<T>::run(Engine<T>& engine, const BlockPass<T>& pass) {
  const int size = ctx_.size(), rank = ctx_.rank();
  if (size == 1) {
    TESSERA_PROFILE_SYNC("nbody.interact", engine.stream());
    engine.interact(engine.bodies(), n_, 0, pass);
    return;
  }
  auto bytes = [](const Range& r) { return static_cast<std::size_t>(r.count) * sizeof(Vec4<T>); };
  {
    TESSERA_PROFILE_SYNC("nbody.pack", engine.stream());
    engine.copy_bodies_to(ring_->current());
  }
  for (int step = 0; step < size; ++step) {
    const Range held = block_range(n_, size, (rank - step + size) % size);
    const bool more = step + 1 < size;
    if (more) {
      // Ordered after the engine's queued work: current() is complete, incoming() no longer read.
      const Range next = block_range(n_, size, (rank - step - 1 + size) % size);
      ring_->start(bytes(held), bytes(next), engine.stream());
    }
    BlockPass<T> block = pass;
    block.first = step == 0;
    block.last = step + 1 == size;
    {
      // Synced when profiling: the ring's block then travels during the kernel as it would.
      TESSERA_PROFILE_SYNC("nbody.interact", engine.stream());
      engine.interact(static_cast<const Vec4<T>*>(ring_->current()), held.count, held.begin, block);
    }
    if (more) ring_->finish(engine.stream());  // the engine's stream waits for the arrival
  }
}

template class RingForces<float>;
template class RingForces<double>;

}  // namespace tessera::nbody
