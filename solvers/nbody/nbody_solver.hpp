#pragma once
// The N-body solver behind `[run] solver = "nbody"`: reads its deck tables, builds the
// engine of the run's backend and the ring over the run's transport, and steps the bodies.
#include <memory>

#include "solvers/solver.hpp"

namespace tessera::nbody {

// InputError (naming the deck key) for decks the schema cannot refuse alone.
std::unique_ptr<Solver> make_nbody_solver(RunContext& run);

}  // namespace tessera::nbody
