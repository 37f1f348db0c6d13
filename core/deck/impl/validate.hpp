#pragma once
// Validation of a parsed deck against a schema, with the extra context that load_deck has when
// it picked the schema from [run] solver.
#include <map>
#include <string>

#include "core/deck/config.hpp"
#include "core/deck/parse.hpp"
#include "core/deck/schema.hpp"

namespace tessera::deck::detail {

struct ValidateOptions {
  // The solver is missing or unknown, so its tables cannot be checked: ignore top-level tables
  // the schema lacks instead of calling each one unknown.
  bool ignore_unknown_tables = false;
  // Top-level tables of other registered solvers -> that solver, for "belongs to solver ..." hints.
  std::map<std::string, std::string, std::less<>> foreign_tables;
  std::string solver;  // the chosen solver, named in those hints
};

Deck validate(const Schema& schema, const ParsedDeck& parsed, const ValidateOptions& options);

}  // namespace tessera::deck::detail
