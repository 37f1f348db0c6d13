#pragma once
// Loading a deck: parse, apply --set overrides, validate against a schema, resolve defaults.
// Every problem in the deck is thrown together as one DeckError (a tessera::InputError).
//
// With a fixed schema:
//   Deck deck = load_deck(schema, text, "demo.toml", overrides);
// With the solver's schema chosen by [run] solver:
//   SolverCatalog catalog{run_schema, {"nbody", "fdtd"}, [](std::string_view s) { return schema_of(s); }};
//   Deck deck = load_deck(catalog, text, "demo.toml", overrides);
// Or in two steps, when the caller wants to pick the schema itself:
//   ParsedDeck parsed = parse_deck(text, "demo.toml", overrides);
//   Deck deck = validate_deck(run_schema_plus(parsed.solver()), parsed);
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/deck/config.hpp"
#include "core/deck/deck_error.hpp"
#include "core/deck/parse.hpp"
#include "core/deck/schema.hpp"

namespace tessera::deck {

// Step two: validates a parsed deck against `schema` and resolves it.
Deck validate_deck(const Schema& schema, const ParsedDeck& parsed);

// Both steps with one schema.
Deck load_deck(const Schema& schema, std::string_view text, std::string source_name,
               std::span<const std::string> overrides = {});

// The run-level schema and the registered solvers, whose schemas are composed on demand.
struct SolverCatalog {
  Schema run_schema;                 // [run], [output], [checkpoint], [diagnostics], ...
  std::vector<std::string> solvers;  // registered solver names
  std::function<Schema(std::string_view solver)> solver_schema;  // called with a registered name

  // run_schema merged with the solver's schema; run.solver becomes a choice of the registered
  // names (declared by the catalog when run_schema lacks it). Throws std::logic_error for a name
  // that is not registered.
  Schema compose(std::string_view solver) const;
};

// Reads run.solver (after overrides), composes its schema and validates. A missing or unknown
// solver is reported (with the registered names and the nearest one) together with the errors
// of the run-level tables; the solver's own tables are then not checked.
Deck load_deck(const SolverCatalog& catalog, std::string_view text, std::string source_name,
               std::span<const std::string> overrides = {});

}  // namespace tessera::deck
