// Checks a parsed deck against a schema and builds the resolved Deck: unknown tables and keys
// (with the nearest valid name), types, ranges, choices, array lengths and missing keys. Every
// problem is collected, so one run reports everything that is wrong with a deck.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/deck/impl/config_access.hpp"
#include "core/deck/impl/describe.hpp"
#include "core/deck/impl/parsed.hpp"
#include "core/deck/impl/problems.hpp"
#include "core/deck/impl/validate.hpp"
#include "core/deck/paths.hpp"
#include "core/deck/suggest.hpp"

namespace tessera::deck::detail {

namespace {

std::string join_path(std::string_view a, std::string_view b) {
  return a.empty() ? std::string(b) : std::string(a) + "." + std::string(b);
}

std::string unit_suffix(const KeySpec& key) { return key.unit.empty() ? "" : " (" + key.unit + ")"; }

bool is_table_array(const toml::node& node) {
  const toml::array* array = node.as_array();
  return array && std::all_of(array->begin(), array->end(), [](const toml::node& e) { return e.is_table(); });
}

class Validator {
 public:
  Validator(const Schema& schema, const ParsedDeck::Impl& parsed, const ValidateOptions& options)
      : schema_(std::make_shared<const Schema>(schema)), parsed_(parsed), options_(options) {}

  Deck run() {
    Config root = ConfigAccess::make(schema_, "", "", parsed_.source_name, parsed_.source_name);
    check_root(parsed_.root, root);
    problems_.throw_if_any(parsed_.source_name);
    return ConfigAccess::make_deck(std::move(root), parsed_.source_text, parsed_.overrides);
  }

  Problems& problems() { return problems_; }

 private:
  // Where the node at deck path `path` came from: the override that set it, else the file.
  Origin origin(std::string_view path, const toml::source_region& region) const {
    if (const auto* o = parsed_.override_at(path)) return o->origin();
    return {parsed_.source_name, region.begin.line, region.begin.column};
  }
  // Where a table lives in the file, if it does (tables created by --set have no position).
  Origin file_origin(const toml::node* node) const {
    if (!node || node->source().begin.line == 0 || !node->source().path ||
        *node->source().path != parsed_.source_name) {
      return {parsed_.source_name};
    }
    return {parsed_.source_name, node->source().begin.line, node->source().begin.column};
  }

  void check_root(const toml::table& deck, Config& out) {
    for (auto&& [key, node] : deck) {
      const std::string name(key.str());
      const TableSpec* spec = name.find('.') == std::string::npos ? schema_->find_table(name) : nullptr;
      if (spec) {
        dispatch(&node, *spec, name, out, name);
      } else if (node.is_table() || (node.is_array() && is_table_array(node) && !node.as_array()->empty())) {
        unknown_top_table(name, node);
      } else {
        stray_key(name, origin(name, key.source()));
      }
    }
    for (const TableSpec* spec : schema_->children("")) {
      if (!deck.contains(spec->name)) dispatch(nullptr, *spec, spec->name, out, spec->name);
    }
  }

  void unknown_top_table(const std::string& name, const toml::node& node) {
    if (options_.ignore_unknown_tables) return;
    const Origin at = origin(name, node.source());
    if (const auto it = options_.foreign_tables.find(name); it != options_.foreign_tables.end()) {
      problems_.add(at, fmt::format("table [{}] belongs to solver '{}', but run.solver is '{}'", name,
                                    it->second, options_.solver));
      return;
    }
    std::vector<std::string> names;
    for (const TableSpec* t : schema_->children("")) names.push_back(t->name);
    problems_.add(at, fmt::format("unknown table [{}]{}", name, did_you_mean(name, names, "[", "]")));
  }

  // A key written above the first table header.
  void stray_key(const std::string& name, const Origin& at) {
    std::string hint = "; keys belong in a table such as [run]";
    for (const TableSpec& t : schema_->tables()) {
      if (!t.array && t.find_key(name)) {
        hint = fmt::format("; did you mean to put it in [{}]?", t.name);
        break;
      }
    }
    problems_.add(at, fmt::format("key '{}' is outside any table{}", name, hint));
  }

  // `node` is the deck's value at `path` (null when absent); results go into `out` under `rel`.
  void dispatch(const toml::node* node, const TableSpec& spec, const std::string& path, Config& out,
                const std::string& rel) {
    if (spec.array) {
      check_table_array(node, spec, path, out, rel);
    } else {
      check_table(node, spec, path, out, rel);
    }
  }

  void check_table_array(const toml::node* node, const TableSpec& spec, const std::string& path,
                         Config& out, const std::string& rel) {
    std::vector<Config> elements;
    if (node && !is_table_array(*node)) {
      problems_.add(origin(path, node->source()),
                    fmt::format("{} must be an array of tables (one {} block each), got {}", path,
                                spec.header(), describe(*node)));
      return;
    }
    if (node) {
      std::size_t index = 0;
      for (const toml::node& element : *node->as_array()) {
        const std::string label = fmt::format("{}[{}]", path, index++);
        Config config = ConfigAccess::make(schema_, spec.name, label, parsed_.source_name,
                                           file_origin(&element).line_text());
        check_table(&element, spec, label, config, "");
        elements.push_back(std::move(config));
      }
    }
    ConfigAccess::set_array(out, rel, std::move(elements));
  }

  void check_table(const toml::node* node, const TableSpec& spec, const std::string& path, Config& out,
                   const std::string& rel) {
    const toml::table* table = node ? node->as_table() : nullptr;
    if (node && !table) {
      problems_.add(origin(path, node->source()),
                    fmt::format("{} must be a table ({}), got {}", path, spec.header(), describe(*node)));
      return;
    }
    if (table) check_entries(*table, spec, path, out, rel);

    // Defaults and missing keys; the table's own line when the file has it.
    for (const KeySpec& key : spec.keys) {
      if (table && table->contains(key.name)) continue;
      const std::string rel_key = join_path(rel, key.name);
      if (key.default_value) {
        ConfigAccess::set(out, rel_key, *key.default_value, parsed_.source_name + " (default)");
      } else if (key.required()) {
        const std::string where = spec.array ? fmt::format("{} ({})", spec.header(), path) : spec.header();
        problems_.add(file_origin(node), fmt::format("missing required key '{}' in {}: {} ({}{})", key.name, where,
                                                     key.description, key.type_description(),
                                                     key.unit.empty() ? "" : ", " + key.unit));
      }
    }
    for (const TableSpec* child : schema_->children(spec.name)) {
      const std::string name(last_component(child->name));
      if (!table || !table->contains(name)) {
        dispatch(nullptr, *child, join_path(path, name), out, join_path(rel, name));
      }
    }
  }

  void check_entries(const toml::table& table, const TableSpec& spec, const std::string& path, Config& out,
                     const std::string& rel) {
    for (auto&& [key, node] : table) {
      const std::string name(key.str());
      const std::string child_path = join_path(path, name);
      if (const KeySpec* key_spec = spec.find_key(name)) {
        if (auto value = check_value(node, *key_spec, child_path)) {
          const Origin at = origin(child_path, node.source());
          if (key_spec->file) {
            value = Value{resolve_file_value(std::get<std::string>(*value), parsed_.source_name,
                                             at.override_index.has_value())};
          }
          ConfigAccess::set(out, join_path(rel, name), std::move(*value), at.line_text());
        }
        continue;
      }
      const TableSpec* sub = name.find('.') == std::string::npos
                                 ? schema_->find_table(join_path(spec.name, name)) : nullptr;
      if (sub) {
        dispatch(&node, *sub, child_path, out, join_path(rel, name));
        continue;
      }
      std::vector<std::string> names;
      for (const KeySpec& k : spec.keys) names.push_back(k.name);
      for (const TableSpec* t : schema_->children(spec.name)) names.emplace_back(last_component(t->name));
      if (node.is_table()) {
        problems_.add(origin(child_path, node.source()),
                      fmt::format("unknown table [{}.{}]{}", spec.name, name,
                                  did_you_mean(name, names, "[" + spec.name + ".", "]")));
      } else {
        problems_.add(origin(child_path, key.source()),
                      fmt::format("unknown key '{}' in {}{}", name, spec.header(), did_you_mean(name, names)));
      }
    }
  }

  void type_error(const Origin& at, const std::string& path, const KeySpec& key, const toml::node& node) {
    std::string hint;
    if (key.type == KeyType::integer || key.type == KeyType::integer_array) {
      // 1e6 or 1000.0 for an integer: say how to write it.
      if (auto d = node.value_exact<double>(); d && std::isfinite(*d) && *d == std::trunc(*d) &&
                                               std::abs(*d) < 9.0e15) {
        hint = fmt::format("; write {} for an integer", static_cast<std::int64_t>(*d));
      }
    }
    problems_.add(at, fmt::format("{} must be {}, got {}{}", path, expected(key), describe(node), hint));
  }

  bool in_range(const Origin& at, const std::string& path, const KeySpec& key, const toml::node& node,
                double x) {
    if (key.range.contains(x)) return true;
    problems_.add(at, fmt::format("{} = {} is out of range: must be {}{}", path, show(node),
                                  key.range.describe(), unit_suffix(key)));
    return false;
  }

  std::optional<Value> check_value(const toml::node& node, const KeySpec& key, const std::string& path) {
    const Origin at = origin(path, node.source());
    switch (key.type) {
      case KeyType::integer:
        if (auto i = node.value_exact<std::int64_t>()) {
          if (in_range(at, path, key, node, static_cast<double>(*i))) return Value{*i};
          return std::nullopt;
        }
        break;
      case KeyType::floating:
        if (node.is_integer() || node.is_floating_point()) {
          const double x = *node.value<double>();  // integers promote to floats
          if (!std::isfinite(x)) {  // inf passes every "> 0" check, nan every comparison
            problems_.add(at, fmt::format("{} = {} must be a finite number", path, show(node)));
            return std::nullopt;
          }
          if (in_range(at, path, key, node, x)) return Value{x};
          return std::nullopt;
        }
        break;
      case KeyType::boolean:
        if (auto b = node.value_exact<bool>()) return Value{*b};
        break;
      case KeyType::string:
      case KeyType::choice:
        if (auto s = string_of(node, path)) return check_choice(at, path, key, std::move(*s));
        break;
      case KeyType::integer_array:
      case KeyType::float_array:
        if (const toml::array* array = node.as_array()) return check_array(*array, key, path);
        break;
    }
    type_error(at, path, key, node);
    return std::nullopt;
  }

  // A string, or the verbatim text of an override whose value read as another scalar: a string
  // key set with --set output.prefix=2024 means the string "2024".
  std::optional<std::string> string_of(const toml::node& node, std::string_view path) const {
    if (auto s = node.value_exact<std::string>()) return *s;
    const auto* o = parsed_.override_at(path);
    if (o && !node.is_array() && !node.is_table()) return o->value;
    return std::nullopt;
  }

  std::optional<Value> check_choice(const Origin& at, const std::string& path, const KeySpec& key,
                                    std::string text) {
    if (key.type != KeyType::choice ||
        std::find(key.choices.begin(), key.choices.end(), text) != key.choices.end()) {
      return Value{std::move(text)};
    }
    std::string allowed;
    for (const std::string& c : key.choices) allowed += (allowed.empty() ? "" : ", ") + quote(c);
    problems_.add(at, fmt::format("{} = {} is not one of {}{}", path, quote(text), allowed,
                                  did_you_mean(text, key.choices, "\"", "\"")));
    return std::nullopt;
  }

  std::optional<Value> check_array(const toml::array& array, const KeySpec& key, const std::string& path) {
    const Origin at = origin(path, array.source());
    if (key.length && array.size() != *key.length) {
      problems_.add(at, fmt::format("{} must have exactly {} elements, got {}", path, *key.length, array.size()));
      return std::nullopt;
    }
    // Report the first few bad elements, not a thousand lines for one wrong array.
    constexpr std::size_t shown = 3;
    std::size_t bad = 0;
    Origin first_unshown = at;
    IntArray ints;
    FloatArray floats;
    for (std::size_t i = 0; i < array.size(); ++i) {
      const toml::node& element = array[i];
      const std::string element_path = fmt::format("{}[{}]", path, i);
      const Origin element_at = origin(path, element.source());
      const bool integral = element.is_integer();
      const bool numeric = integral || element.is_floating_point();
      const bool type_ok = key.type == KeyType::integer_array ? integral : numeric;
      const double x = numeric ? *element.value<double>() : 0.0;
      if (type_ok && std::isfinite(x) && key.range.contains(x)) {
        if (integral && key.type == KeyType::integer_array) ints.push_back(*element.value_exact<std::int64_t>());
        floats.push_back(x);
        continue;
      }
      if (++bad > shown) {
        if (bad == shown + 1) first_unshown = element_at;
        continue;
      }
      if (!type_ok) {
        KeySpec element_key = key;
        element_key.type = key.type == KeyType::integer_array ? KeyType::integer : KeyType::floating;
        type_error(element_at, element_path, element_key, element);
      } else if (!std::isfinite(x)) {
        problems_.add(element_at, fmt::format("{} = {} must be a finite number", element_path, show(element)));
      } else {
        in_range(element_at, element_path, key, element, x);
      }
    }
    if (bad > shown) problems_.add(first_unshown, fmt::format("{}: {} more invalid elements", path, bad - shown));
    if (bad > 0) return std::nullopt;
    if (key.type == KeyType::integer_array) return Value{std::move(ints)};
    return Value{std::move(floats)};
  }

  std::shared_ptr<const Schema> schema_;
  const ParsedDeck::Impl& parsed_;
  const ValidateOptions& options_;
  Problems problems_;
};

}  // namespace

Deck validate(const Schema& schema, const ParsedDeck& parsed, const ValidateOptions& options) {
  Validator validator(schema, parsed.impl(), options);
  validator.problems() = parsed.impl().problems;  // malformed overrides, reported with the rest
  return validator.run();
}

}  // namespace tessera::deck::detail
