#pragma once
// The deck tables every run has ([run], [output], [diagnostics], [checkpoint]) and the
// composition with the chosen solver's tables.
#include <string_view>

#include "app/registry.hpp"
#include "core/deck/load.hpp"

namespace tessera::app {

// The run tables without [run] solver, which the catalog declares as a choice of the
// registered solvers.
deck::Schema run_schema(const Registry& registry);
// The run tables plus each registered solver's, composed for the solver a deck names.
deck::SolverCatalog solver_catalog(const Registry& registry);

}  // namespace tessera::app
