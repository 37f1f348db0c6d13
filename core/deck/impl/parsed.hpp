#pragma once
// What parse_deck hands to validation: the TOML tree with overrides applied, and which deck
// paths the overrides set, so messages about those values name the override, not the file.
#include <toml++/toml.h>

#include <map>
#include <string>
#include <vector>

#include "core/deck/impl/problems.hpp"
#include "core/deck/parse.hpp"

namespace tessera::deck {

struct ParsedDeck::Impl {
  struct Override {
    std::string text;   // as the user wrote it, for messages: "--set nbody.n=3"
    std::string value;  // the text after '=': a string key takes it verbatim ("--set x.name=2024")
    std::size_t index = 0;  // position on the command line

    detail::Origin origin() const { return {text, 0, 0, index}; }
  };

  std::string source_name;
  std::string source_text;
  std::vector<std::string> overrides;
  toml::table root;
  std::map<std::string, Override, std::less<>> set_by;  // "nbody.n" (or a table it created) -> override
  detail::Problems problems;                          // malformed overrides

  // The override that set `path`, if any.
  const Override* override_at(std::string_view path) const {
    const auto it = set_by.find(path);
    return it == set_by.end() ? nullptr : &it->second;
  }
};

}  // namespace tessera::deck
