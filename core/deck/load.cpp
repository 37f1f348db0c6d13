#include "core/deck/load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/deck/impl/parsed.hpp"
#include "core/deck/impl/validate.hpp"

namespace tessera::deck {

namespace {

// run_schema with run.solver a choice of the registered solvers.
Schema run_level(const SolverCatalog& catalog) {
  Schema schema = catalog.run_schema;
  TableBuilder run = schema.table("run");
  if (run.spec().find_key("solver")) {
    run.key("solver").choices(catalog.solvers);  // keeps the app's description
  } else {
    run.choice("solver", "the solver to run", catalog.solvers);
  }
  return schema;
}

}  // namespace

Deck validate_deck(const Schema& schema, const ParsedDeck& parsed) {
  detail::ValidateOptions options;
  // When run.solver is a choice that the deck misses or gets wrong, the schema cannot hold the
  // intended solver's tables: report the solver alone, not each of its tables as unknown.
  const TableSpec* run = schema.find_table("run");
  const KeySpec* solver = run ? run->find_key("solver") : nullptr;
  if (solver && solver->type == KeyType::choice && !solver->default_value) {
    const auto chosen = parsed.solver();
    options.ignore_unknown_tables =
        !chosen || std::find(solver->choices.begin(), solver->choices.end(), *chosen) == solver->choices.end();
  }
  return detail::validate(schema, parsed, options);
}

Deck load_deck(const Schema& schema, std::string_view text, std::string source_name,
               std::span<const std::string> overrides) {
  return validate_deck(schema, parse_deck(text, std::move(source_name), overrides));
}

Schema SolverCatalog::compose(std::string_view solver) const {
  if (std::find(solvers.begin(), solvers.end(), solver) == solvers.end()) {
    throw std::logic_error(fmt::format("deck: solver '{}' is not registered", solver));
  }
  Schema schema = run_level(*this);
  return schema.merge(solver_schema(solver));
}

Deck load_deck(const SolverCatalog& catalog, std::string_view text, std::string source_name,
               std::span<const std::string> overrides) {
  const ParsedDeck parsed = parse_deck(text, std::move(source_name), overrides);
  const Schema run_schema = run_level(catalog);
  std::optional<std::string> solver = parsed.solver();
  if (!parsed.impl().root["run"]["solver"]) {  // absent: the app's default solver, if it has one
    const KeySpec* key = run_schema.find_table("run")->find_key("solver");
    if (key->default_value) solver = std::get<std::string>(*key->default_value);
  }
  const bool known =
      solver && std::find(catalog.solvers.begin(), catalog.solvers.end(), *solver) != catalog.solvers.end();
  if (!known) {
    // run.solver's own check reports the missing or unknown solver; other tables cannot be judged.
    detail::ValidateOptions options;
    options.ignore_unknown_tables = true;
    return detail::validate(run_schema, parsed, options);
  }
  const Schema schema = catalog.compose(*solver);
  detail::ValidateOptions options;
  options.solver = *solver;
  for (const std::string& other : catalog.solvers) {
    if (other == *solver) continue;
    const Schema other_schema = catalog.solver_schema(other);
    for (const TableSpec* t : other_schema.children("")) {
      if (!schema.find_table(t->name)) options.foreign_tables.emplace(t->name, other);
    }
  }
  return detail::validate(schema, parsed, options);
}

}  // namespace tessera::deck
