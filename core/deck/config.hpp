#pragma once
// A validated deck: every key of the schema resolved (defaults filled in), read through typed
// getters by dotted name ("nbody.dt"). Asking for a key the schema does not have, or with the
// wrong type, is a bug in the caller and throws std::logic_error; the user's mistakes were all
// reported (as tessera::InputError) before a Deck exists.
//
//   const Deck deck = load_deck(schema, text, "demo.toml", overrides);
//   const auto n = deck.get_int("nbody.n");
//   for (const Config& source : deck.get_table_array("fdtd.source"))
//     place(source.get_double_array("position"), source.where("position"));
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/deck/schema.hpp"
#include "core/deck/value.hpp"

namespace tessera::deck {

namespace detail {
struct ConfigAccess;
}

// The keys of the whole deck, or of one element of an array of tables (whose keys are named
// relative to it: "position", "shape.radius").
class Config {
 public:
  std::int64_t get_int(std::string_view key) const;
  double get_double(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;  // string and choice keys
  const IntArray& get_int_array(std::string_view key) const;
  const FloatArray& get_double_array(std::string_view key) const;

  // Whether the key has a value: always for keys with defaults, and for optional() keys only
  // when the deck sets them.
  bool has(std::string_view key) const;

  // The elements of an array of tables ([[fdtd.source]]), in deck order; empty when none.
  std::span<const Config> get_table_array(std::string_view name) const;

  // Where a key's value came from, for messages raised after validation: "demo.toml:5",
  // "--set nbody.dt=0.2", or "demo.toml (default)".
  std::string where(std::string_view key) const;
  // The key, its value and where it came from: "nbody.n = 4096 (demo.toml:5)".
  std::string describe(std::string_view key) const;

  // For an element of an array of tables: its name in messages ("fdtd.source[1]") and where
  // its [[...]] header is ("demo.toml:14"). Empty name and the source name for the whole deck.
  const std::string& name() const { return label_; }
  const std::string& location() const { return location_; }

 protected:
  struct Entry {
    Value value;
    std::string origin;  // as where() returns it
  };

  const KeySpec& spec_of(std::string_view key) const;  // throws std::logic_error
  const Entry& entry(std::string_view key, KeyType type, std::string_view getter) const;
  std::string absolute(std::string_view relative) const;

  std::shared_ptr<const Schema> schema_;
  std::string scope_;        // schema table of this config: "" (whole deck) or "fdtd.source"
  std::string label_;        // "" or "fdtd.source[1]"
  std::string source_name_;  // the deck file, for where() of defaults
  std::string location_;
  std::map<std::string, Entry, std::less<>> values_;              // relative dotted key -> value
  std::map<std::string, std::vector<Config>, std::less<>> arrays_;  // relative table name -> elements

  friend struct detail::ConfigAccess;
};

// The whole deck, with where it came from.
class Deck : public Config {
 public:
  Deck() = default;

  // The resolved deck as TOML: every key of the schema with its value (defaults filled in),
  // tables in schema order. load_deck() of this text gives back the same values; it is what
  // rank 0 broadcasts and what checkpoints and outputs store.
  std::string to_toml() const;

  const std::string& source_name() const { return source_name_; }
  const std::string& source_text() const { return source_text_; }  // the deck as written
  const std::vector<std::string>& overrides() const { return overrides_; }  // --set, in order
  const Schema& schema() const;

 private:
  std::string source_text_;
  std::vector<std::string> overrides_;
  friend struct detail::ConfigAccess;
};

}  // namespace tessera::deck
