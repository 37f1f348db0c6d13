#pragma once
// Validation fills in Config and Deck; the rest of the program only reads them.
#include <memory>
#include <string>
#include <vector>

#include "core/deck/config.hpp"

namespace tessera::deck::detail {

struct ConfigAccess {
  static Config make(std::shared_ptr<const Schema> schema, std::string scope, std::string label,
                     std::string source_name, std::string location) {
    Config c;
    c.schema_ = std::move(schema);
    c.scope_ = std::move(scope);
    c.label_ = std::move(label);
    c.source_name_ = std::move(source_name);
    c.location_ = std::move(location);
    return c;
  }
  static void set(Config& c, std::string relative_key, Value value, std::string origin) {
    c.values_.insert_or_assign(std::move(relative_key), Config::Entry{std::move(value), std::move(origin)});
  }
  static void set_array(Config& c, std::string relative_name, std::vector<Config> elements) {
    c.arrays_.insert_or_assign(std::move(relative_name), std::move(elements));
  }
  static const std::shared_ptr<const Schema>& schema(const Config& c) { return c.schema_; }

  // Deck-level fields.
  static Deck make_deck(Config root, std::string source_text, std::vector<std::string> overrides) {
    Deck d;
    static_cast<Config&>(d) = std::move(root);
    d.source_text_ = std::move(source_text);
    d.overrides_ = std::move(overrides);
    return d;
  }
  static const Config::Entry* find(const Config& c, std::string_view relative_key) {
    const auto it = c.values_.find(relative_key);
    return it == c.values_.end() ? nullptr : &it->second;
  }
};

}  // namespace tessera::deck::detail
