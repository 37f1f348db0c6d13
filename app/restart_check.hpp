#pragma once
// A restart continues the run its checkpoint came from, so the deck given must describe the
// same physics. Compared key by key (the resolved decks, defaults filled in): the cadences and
// places of outputs, diagnostics and checkpoints, the step count or end time, the backend and
// transport may change, and whatever the solver lists in SolverInfo::restart_may_change;
// anything else that differs (nbody.dt, fdtd.cells, a source, a material ...) is refused,
// naming every such key with both values and where the new value came from.
#include <filesystem>
#include <string>

#include "core/deck/config.hpp"
#include "solvers/solver.hpp"

namespace tessera::app {

// Throws InputError (not collective: every rank holds the same decks, so every rank throws).
void check_restart_deck(const deck::Deck& now, const std::string& checkpoint_deck_text,
                        const std::filesystem::path& checkpoint, const SolverInfo& solver);

}  // namespace tessera::app
