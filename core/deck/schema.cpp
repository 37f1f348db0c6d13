#include "core/deck/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera::deck {

namespace {

[[noreturn]] void schema_bug(const std::string& what) {
  throw std::logic_error("deck schema: " + what);
}

// Names become bare TOML keys in to_toml(), so they must be bare-key characters.
bool is_bare_key(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
}

bool is_dotted_name(std::string_view name) {
  while (true) {
    const auto dot = name.find('.');
    if (!is_bare_key(name.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    name.remove_prefix(dot + 1);
  }
}

std::string plural(KeyType element) {
  return element == KeyType::integer_array ? "integers" : "floats";
}

}  // namespace

std::string_view parent_name(std::string_view table_name) {
  const auto dot = table_name.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : table_name.substr(0, dot);
}

std::string_view last_component(std::string_view dotted_name) {
  const auto dot = dotted_name.rfind('.');
  return dot == std::string_view::npos ? dotted_name : dotted_name.substr(dot + 1);
}

// ---- Range ---------------------------------------------------------------------------------

bool Range::contains(double x) const {
  if (lower && !(lower->inclusive ? x >= lower->value : x > lower->value)) return false;
  if (upper && !(upper->inclusive ? x <= upper->value : x < upper->value)) return false;
  return true;
}

std::string Range::describe() const {
  std::string out;
  if (lower) out = fmt::format("{} {}", lower->inclusive ? ">=" : ">", lower->value);
  if (upper) {
    if (!out.empty()) out += " and ";
    out += fmt::format("{} {}", upper->inclusive ? "<=" : "<", upper->value);
  }
  return out;
}

// ---- KeySpec / TableSpec -------------------------------------------------------------------

std::string KeySpec::type_description() const {
  switch (type) {
    case KeyType::integer: return "integer";
    case KeyType::floating: return "float";
    case KeyType::boolean: return "boolean";
    case KeyType::string: return "string";
    case KeyType::choice: {
      std::string out = "one of ";
      for (std::size_t i = 0; i < choices.size(); ++i) {
        out += (i > 0 ? ", " : "") + quote(choices[i]);
      }
      return out;
    }
    case KeyType::integer_array:
    case KeyType::float_array:
      return length ? fmt::format("array of {} {}", *length, plural(type))
                    : fmt::format("array of {}", plural(type));
  }
  return "?";
}

const KeySpec* TableSpec::find_key(std::string_view key) const {
  for (const KeySpec& k : keys) {
    if (k.name == key) return &k;
  }
  return nullptr;
}

std::string TableSpec::header() const { return array ? "[[" + name + "]]" : "[" + name + "]"; }

// ---- TableBuilder --------------------------------------------------------------------------

KeyBuilder TableBuilder::add(std::string_view name, KeyType type, std::string_view description) {
  if (!is_bare_key(name)) {
    schema_bug(fmt::format("key name '{}' in {} must use only A-Z a-z 0-9 _ -", name, table_->header()));
  }
  if (table_->find_key(name)) schema_bug(fmt::format("key '{}' declared twice in {}", name, table_->header()));
  const std::string sub = table_->name + "." + std::string(name);
  if (schema_->find_table(sub)) {
    schema_bug(fmt::format("key '{}' clashes with table [{}]", name, sub));
  }
  KeySpec key;
  key.name = std::string(name);
  key.type = type;
  key.description = std::string(description);
  table_->keys.push_back(std::move(key));
  return KeyBuilder(schema_, table_, table_->keys.size() - 1);
}

KeyBuilder TableBuilder::integer(std::string_view name, std::string_view description) {
  return add(name, KeyType::integer, description);
}
KeyBuilder TableBuilder::floating(std::string_view name, std::string_view description) {
  return add(name, KeyType::floating, description);
}
KeyBuilder TableBuilder::boolean(std::string_view name, std::string_view description) {
  return add(name, KeyType::boolean, description);
}
KeyBuilder TableBuilder::string(std::string_view name, std::string_view description) {
  return add(name, KeyType::string, description);
}
KeyBuilder TableBuilder::choice(std::string_view name, std::string_view description,
                                std::vector<std::string> choices) {
  KeyBuilder key = add(name, KeyType::string, description);
  key.choices(std::move(choices));
  return key;
}
KeyBuilder TableBuilder::integer_array(std::string_view name, std::string_view description) {
  return add(name, KeyType::integer_array, description);
}
KeyBuilder TableBuilder::float_array(std::string_view name, std::string_view description) {
  return add(name, KeyType::float_array, description);
}

KeyBuilder TableBuilder::key(std::string_view name) {
  for (std::size_t i = 0; i < table_->keys.size(); ++i) {
    if (table_->keys[i].name == name) return KeyBuilder(schema_, table_, i);
  }
  schema_bug(fmt::format("no key '{}' in {} to refine", name, table_->header()));
}

// ---- KeyBuilder ----------------------------------------------------------------------------

KeyBuilder& KeyBuilder::unit(std::string_view unit) {
  mutable_key().unit = std::string(unit);
  return *this;
}

KeyBuilder& KeyBuilder::set_bound(std::optional<Bound>& bound, Bound value) {
  const KeyType t = key().type;
  if (t != KeyType::integer && t != KeyType::floating && !is_array(t)) {
    schema_bug(fmt::format("range on non-numeric key '{}' in {}", key().name, table_->header()));
  }
  if (std::isnan(value.value)) schema_bug(fmt::format("NaN bound on key '{}'", key().name));
  bound = value;
  check_consistent();
  return *this;
}

KeyBuilder& KeyBuilder::min(double value) { return set_bound(mutable_key().range.lower, {value, true}); }
KeyBuilder& KeyBuilder::max(double value) { return set_bound(mutable_key().range.upper, {value, true}); }
KeyBuilder& KeyBuilder::greater_than(double value) {
  return set_bound(mutable_key().range.lower, {value, false});
}
KeyBuilder& KeyBuilder::less_than(double value) {
  return set_bound(mutable_key().range.upper, {value, false});
}

KeyBuilder& KeyBuilder::length(std::size_t n) {
  if (!is_array(key().type)) schema_bug(fmt::format("length() on non-array key '{}'", key().name));
  mutable_key().length = n;
  check_consistent();
  return *this;
}

// optional() and default_value() replace each other, so a reopened key can change its mind.
KeyBuilder& KeyBuilder::optional() {
  mutable_key().default_value.reset();
  mutable_key().optional = true;
  return *this;
}

KeyBuilder& KeyBuilder::file() {
  if (key().type != KeyType::string) schema_bug(fmt::format("file() on non-string key '{}'", key().name));
  mutable_key().file = true;
  return *this;
}

KeyBuilder& KeyBuilder::choices(std::vector<std::string> choices) {
  if (key().type != KeyType::string && key().type != KeyType::choice) {
    schema_bug(fmt::format("choices() on non-string key '{}'", key().name));
  }
  if (choices.empty()) schema_bug(fmt::format("choice key '{}' has no choices", key().name));
  mutable_key().type = KeyType::choice;
  mutable_key().choices = std::move(choices);
  check_consistent();
  return *this;
}

KeyBuilder& KeyBuilder::set_default(Value value) {
  if (!holds(value, key().type)) {
    schema_bug(fmt::format("default of key '{}' in {} is not a {}", key().name, table_->header(),
                           type_name(key().type)));
  }
  mutable_key().default_value = std::move(value);
  mutable_key().optional = false;
  check_consistent();
  return *this;
}

KeyBuilder& KeyBuilder::default_value(int value) { return default_value(std::int64_t{value}); }

KeyBuilder& KeyBuilder::default_value(std::int64_t value) {
  // An integer default for a float key is the float of that value, as in a deck.
  if (key().type == KeyType::floating) return set_default(static_cast<double>(value));
  return set_default(value);
}

KeyBuilder& KeyBuilder::default_value(double value) { return set_default(value); }
KeyBuilder& KeyBuilder::default_value(bool value) { return set_default(value); }
KeyBuilder& KeyBuilder::default_value(const char* value) { return set_default(std::string(value)); }
KeyBuilder& KeyBuilder::default_value(std::string value) { return set_default(std::move(value)); }

KeyBuilder& KeyBuilder::default_value(std::initializer_list<double> values) {
  if (key().type == KeyType::integer_array) {
    IntArray ints;
    for (double v : values) {
      if (v != std::trunc(v)) {
        schema_bug(fmt::format("default of integer array '{}' holds {}", key().name, v));
      }
      ints.push_back(static_cast<std::int64_t>(v));
    }
    return set_default(std::move(ints));
  }
  return set_default(FloatArray(values));
}

KeyBuilder& KeyBuilder::default_value(IntArray values) {
  if (key().type == KeyType::float_array) return set_default(FloatArray(values.begin(), values.end()));
  return set_default(std::move(values));
}

KeyBuilder& KeyBuilder::default_value(FloatArray values) { return set_default(std::move(values)); }

// A default must itself pass validation, or every deck that omits the key would fail.
void KeyBuilder::check_consistent() const {
  const KeySpec& k = key();
  if (!k.default_value) return;
  const auto bad = [&](const std::string& why) {
    schema_bug(fmt::format("default of '{}' in {} {}", k.name, table_->header(), why));
  };
  const Value& v = *k.default_value;
  if (const auto* i = std::get_if<std::int64_t>(&v); i && !k.range.contains(static_cast<double>(*i))) {
    bad("is outside " + k.range.describe());
  }
  if (const auto* d = std::get_if<double>(&v); d && !k.range.contains(*d)) bad("is outside " + k.range.describe());
  if (const auto* s = std::get_if<std::string>(&v); s && k.type == KeyType::choice &&
      std::find(k.choices.begin(), k.choices.end(), *s) == k.choices.end()) {
    bad("is not one of its choices");
  }
  const auto check_array = [&](const auto& items) {
    if (k.length && items.size() != *k.length) bad(fmt::format("does not have {} elements", *k.length));
    for (auto x : items) {
      if (!k.range.contains(static_cast<double>(x))) bad("has an element outside " + k.range.describe());
    }
  };
  if (const auto* a = std::get_if<IntArray>(&v)) check_array(*a);
  if (const auto* a = std::get_if<FloatArray>(&v)) check_array(*a);
}

// ---- Schema --------------------------------------------------------------------------------

TableBuilder Schema::declare(std::string_view name, std::string_view description, bool array) {
  if (!is_dotted_name(name)) {
    schema_bug(fmt::format("table name '{}' must be dotted bare keys (A-Z a-z 0-9 _ -)", name));
  }
  if (TableSpec* existing = find_mutable(name)) {
    if (existing->array != array) {
      schema_bug(fmt::format("table '{}' declared both as a table and as an array of tables", name));
    }
    if (existing->description.empty()) existing->description = std::string(description);
    return TableBuilder(this, existing);
  }
  const std::string_view parent = parent_name(name);
  if (!parent.empty()) {
    const TableSpec* p = find_table(parent);
    if (!p) schema_bug(fmt::format("declare table [{}] before its sub-table [{}]", parent, name));
    if (p->find_key(last_component(name))) {
      schema_bug(fmt::format("table [{}] clashes with key '{}' of [{}]", name, last_component(name), parent));
    }
  }
  TableSpec table;
  table.name = std::string(name);
  table.description = std::string(description);
  table.array = array;
  tables_.push_back(std::move(table));
  return TableBuilder(this, &tables_.back());
}

TableBuilder Schema::table(std::string_view name, std::string_view description) {
  return declare(name, description, false);
}

TableBuilder Schema::array_table(std::string_view name, std::string_view description) {
  return declare(name, description, true);
}

Schema& Schema::merge(const Schema& other) {
  if (&other == this) schema_bug("merge of a schema with itself");
  for (const TableSpec& table : other.tables_) {
    TableBuilder builder = declare(table.name, table.description, table.array);
    for (const KeySpec& key : table.keys) {
      builder.add(key.name, key.type, key.description);  // checks for clashes
      builder.table_->keys.back() = key;                  // then copies every attribute
    }
  }
  return *this;
}

const TableSpec* Schema::find_table(std::string_view name) const {
  for (const TableSpec& t : tables_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

TableSpec* Schema::find_mutable(std::string_view name) {
  for (TableSpec& t : tables_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<const TableSpec*> Schema::children(std::string_view parent) const {
  std::vector<const TableSpec*> out;
  for (const TableSpec& t : tables_) {
    if (parent_name(t.name) == parent) out.push_back(&t);
  }
  return out;
}

}  // namespace tessera::deck
