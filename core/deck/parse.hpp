#pragma once
// Step one of loading a deck: parse the TOML text and apply the --set overrides, without a
// schema yet. The caller can then read [run] solver to choose the solver's schema, and validate
// with it (validate_deck in load.hpp). load_deck does both steps at once.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::deck {

class ParsedDeck {
 public:
  struct Impl;  // the TOML tree and the overrides' provenance (core/deck/impl/parsed.hpp)
  explicit ParsedDeck(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  // [run] solver after overrides, when it is present and a string.
  std::optional<std::string> solver() const;

  const std::string& source_name() const;
  const std::string& source_text() const;
  const std::vector<std::string>& overrides() const;
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Parses `text` (named `source_name` in messages, normally the deck's path) and applies each
// override "table.key=value" in order (a later one wins). A TOML syntax error throws DeckError
// (an InputError) at once, with file:line:column; a malformed override is reported together
// with the validation errors.
//
// An override's value is read as a TOML value (1000, 0.5, true, "text", [1, 2, 3]); a bare word
// that is not TOML (euler, out/run1) is taken as a string.
ParsedDeck parse_deck(std::string_view text, std::string source_name,
                      std::span<const std::string> overrides = {});

}  // namespace tessera::deck
