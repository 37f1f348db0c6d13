#pragma once
// Ghosts: fills the ghost layers each half step reads, and nothing more.
//   before the H update: E tangential to each face, in the high ghost layers (H reads E at +1)
//   before the E update: H tangential to each face, in the low ghost layers (E reads H at -1)
//   before the fused sweep, along axes cut into ranks: all of E in those ghost layers, edges
//   included, and H tangential in the low ones: the sweep recomputes the new H of the low
//   ghost layers itself (its E update reads them), which reads E on both sides of those cells
//   (a periodic axis that one rank spans wraps inside the sweep); a grid cut along z alone
//   sends these as whole planes in one group, no packing
// begin() starts the transfer after the engine's queued work; finish() completes it; the
// Stepper updates the interior in between. For HalfStep::fused the transfer runs on the
// halo stream after what engine.halo_after_compute() last ordered, and finish() orders the
// compute stream after it. Ghost layers at non-periodic domain faces are left
// alone (zero: the PEC wall behind a pec or cpml face).
#include <array>
#include <memory>
#include <span>

#include "solvers/fdtd/backend.hpp"

namespace tessera::comm {
class CartDecomposition;
class Transport;
}  // namespace tessera::comm

namespace tessera::fdtd {

enum class HalfStep { e_for_h, h_for_e, fused };

class Ghosts {
 public:
  virtual ~Ghosts() = default;
  virtual void begin(HalfStep which, Engine& engine) = 0;
  virtual void finish(HalfStep which, Engine& engine) = 0;
  // Axes whose ghost layer (on the side `which` reads) only finish() fills: the cells next to
  // it wait for the transfer (the Stepper's shell), the others update in between. A periodic
  // axis that this rank spans alone is wrapped within begin() and needs no shell. For
  // HalfStep::fused, the axes cut into ranks (the fused sweep can update around z alone).
  virtual std::array<bool, 3> filled_late(HalfStep which) const = 0;
  // Whether `mine` holds on every rank that shares these ghosts (collective where there are
  // several): choices that decide which exchanges run must be the same on all of them.
  virtual bool on_every_rank(bool mine) = 0;
  // Each value becomes its largest over the ranks that share these ghosts (collective likewise).
  virtual void max_over_ranks(std::span<double> values) = 0;
  // The blocked sweep across ranks (z only): before a pass of `steps` steps, the `steps` planes
  // next to each z face with a neighbour, all six components, into the engine's deep planes
  // beyond the neighbour's face (Engine::deep_planes), in order on the compute stream; with
  // `materials`, the material indices instead (once, before the first pass). Collective; a
  // no-op without z neighbours.
  virtual void exchange_pass(Engine& engine, int steps, bool materials = false) = 0;
  // The fields' exchange_pass in two halves, for a pass split around it: begin_pass starts the
  // transfers (after the work queued on the compute stream); finish_pass completes them, and
  // work queued on the compute stream after it sees the planes. In between the compute stream
  // may only run what reads no plane beyond a z face (Engine::update_blocked's inner part).
  virtual void begin_pass(Engine& engine, int steps) = 0;
  virtual void finish_pass(Engine& engine) = 0;
};

// Across ranks through comm::HaloExchange: per axis one exchange of the two tangential
// components, filling only the side the next update reads. Axes with a neighbouring rank
// travel on the engine's halo stream between begin() and finish(); a periodic axis this rank
// spans alone (its own neighbour) is wrapped at once on the compute stream. Collective to
// construct.
std::unique_ptr<Ghosts> make_halo_ghosts(const comm::CartDecomposition& decomp, comm::Transport& transport,
                                         const Layout& layout);

// One rank without MPI (tests, serial reference): periodic axes wrap by copying within
// begin(), in host memory only (a cpu engine); no periodic axis with the fused sweep.
std::unique_ptr<Ghosts> make_local_ghosts(const LocalDomain& domain);

// The LocalDomain of this rank of a decomposition.
LocalDomain local_domain(const comm::CartDecomposition& decomp);
// A single-rank LocalDomain of the whole grid; `periodic` axes have both ghosts filled.
LocalDomain whole_domain(const Index3& cells, std::array<bool, 3> periodic);

}  // namespace tessera::fdtd
