#include "core/deck/config.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace tessera::deck {

namespace {
[[noreturn]] void caller_bug(const std::string& what) { throw std::logic_error("deck: " + what); }

std::string_view getter_for(KeyType type) {
  switch (type) {
    case KeyType::integer: return "get_int";
    case KeyType::floating: return "get_double";
    case KeyType::boolean: return "get_bool";
    case KeyType::string:
    case KeyType::choice: return "get_string";
    case KeyType::integer_array: return "get_int_array";
    case KeyType::float_array: return "get_double_array";
  }
  return "?";
}
}  // namespace

std::string Config::absolute(std::string_view relative) const {
  return scope_.empty() ? std::string(relative) : scope_ + "." + std::string(relative);
}

const KeySpec& Config::spec_of(std::string_view key) const {
  if (!schema_) caller_bug(fmt::format("'{}' read from an empty Deck", key));
  const std::string full = absolute(key);
  const std::string_view table = parent_name(full);
  if (table.empty()) caller_bug(fmt::format("'{}' names no table; keys read as table.key", full));
  const TableSpec* spec = schema_->find_table(table);
  const KeySpec* key_spec = spec ? spec->find_key(last_component(full)) : nullptr;
  if (!key_spec) caller_bug(fmt::format("the schema has no key '{}'", full));
  // Keys inside an array of tables are read through its elements, not by a dotted name.
  for (std::string_view t = table; t != scope_ && !t.empty(); t = parent_name(t)) {
    if (schema_->find_table(t)->array) {
      caller_bug(fmt::format("'{}' lies in the array of tables [[{}]]; read it through get_table_array(\"{}\")",
                             full, t, t));
    }
  }
  return *key_spec;
}

const Config::Entry& Config::entry(std::string_view key, KeyType type, std::string_view getter) const {
  const KeySpec& spec = spec_of(key);
  const bool string_like = type == KeyType::string && spec.type == KeyType::choice;
  if (spec.type != type && !string_like) {
    const std::string_view kind = type_name(spec.type);
    caller_bug(fmt::format("'{}' is {} {} key; {} cannot read it, use {}", absolute(key),
                           kind.starts_with('i') ? "an" : "a", kind, getter, getter_for(spec.type)));
  }
  const auto it = values_.find(key);
  if (it == values_.end()) {
    caller_bug(fmt::format("optional key '{}' is not set; check has() first", absolute(key)));
  }
  return it->second;
}

std::int64_t Config::get_int(std::string_view key) const {
  return std::get<std::int64_t>(entry(key, KeyType::integer, "get_int").value);
}
double Config::get_double(std::string_view key) const {
  return std::get<double>(entry(key, KeyType::floating, "get_double").value);
}
bool Config::get_bool(std::string_view key) const {
  return std::get<bool>(entry(key, KeyType::boolean, "get_bool").value);
}
const std::string& Config::get_string(std::string_view key) const {
  return std::get<std::string>(entry(key, KeyType::string, "get_string").value);
}
const IntArray& Config::get_int_array(std::string_view key) const {
  return std::get<IntArray>(entry(key, KeyType::integer_array, "get_int_array").value);
}
const FloatArray& Config::get_double_array(std::string_view key) const {
  return std::get<FloatArray>(entry(key, KeyType::float_array, "get_double_array").value);
}

bool Config::has(std::string_view key) const {
  spec_of(key);  // an unknown name is a bug, not "absent"
  return values_.find(key) != values_.end();
}

std::span<const Config> Config::get_table_array(std::string_view name) const {
  if (!schema_) caller_bug(fmt::format("'{}' read from an empty Deck", name));
  const std::string full = absolute(name);
  const TableSpec* spec = schema_->find_table(full);
  if (!spec || !spec->array) caller_bug(fmt::format("the schema has no array of tables [[{}]]", full));
  for (std::string_view t = parent_name(full); t != scope_ && !t.empty(); t = parent_name(t)) {
    if (schema_->find_table(t)->array) {
      caller_bug(fmt::format("[[{}]] lies in the array of tables [[{}]]; read it through its elements", full, t));
    }
  }
  const auto it = arrays_.find(name);
  if (it == arrays_.end()) return {};
  return it->second;
}

std::string Config::where(std::string_view key) const {
  spec_of(key);
  const auto it = values_.find(key);
  return it != values_.end() ? it->second.origin : source_name_ + " (not set)";
}

std::string Config::describe(std::string_view key) const {
  spec_of(key);
  const auto it = values_.find(key);
  if (it == values_.end()) return fmt::format("{} ({})", absolute(key), where(key));
  return fmt::format("{} = {} ({})", absolute(key), to_toml_literal(it->second.value), it->second.origin);
}

const Schema& Deck::schema() const {
  if (!schema_) caller_bug("schema() of an empty Deck");
  return *schema_;
}

}  // namespace tessera::deck
