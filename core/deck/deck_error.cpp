#include "core/deck/deck_error.hpp"

#include <fmt/format.h>

namespace tessera::deck {

namespace {
std::string compose(const std::string& source_name, const std::vector<std::string>& problems) {
  if (problems.size() == 1) return problems.front();
  std::string text = fmt::format("{}: {} errors in the deck:", source_name, problems.size());
  for (const std::string& p : problems) text += "\n  " + p;
  return text;
}
}  // namespace

DeckError::DeckError(const std::string& source_name, std::vector<std::string> problems)
    : InputError(compose(source_name, problems)), problems_(std::move(problems)) {}

}  // namespace tessera::deck
