// --set table.key=value: parsed as a TOML value and written into the parsed deck before
// validation, remembering which paths it set so that messages name the override.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/deck/impl/parsed.hpp"

namespace tessera::deck::detail {

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  while (true) {
    const auto dot = path.find('.');
    parts.emplace_back(trim(path.substr(0, dot)));
    if (dot == std::string_view::npos) return parts;
    path.remove_prefix(dot + 1);
  }
}

bool is_valid_path(const std::vector<std::string>& parts) {
  if (parts.size() < 2) return false;
  for (const std::string& p : parts) {
    if (p.empty() || p.find_first_of(" \t\"'[]") != std::string::npos) return false;
  }
  return true;
}

// The value as a one-node TOML table {v = value}, or nullopt after reporting why not.
std::optional<toml::table> parse_value(std::string_view value, const Origin& origin, Problems& problems) {
  try {
    toml::table doc = toml::parse("v = " + std::string(value), std::string_view("--set"));
    if (doc.size() == 1 && doc.contains("v")) return doc;
    problems.add(origin, "the value must be one TOML value");
    return std::nullopt;
  } catch (const toml::parse_error& e) {
    // Something meant as TOML (a quoted string, an array, an inline table) that does not parse
    // is an error; any other word is a string written without quotes: integrator=euler.
    if (value.find_first_of("\"'[{") == 0) {
      problems.add(origin, fmt::format("invalid TOML value: {}", e.description()));
      return std::nullopt;
    }
    toml::table doc;
    doc.insert("v", std::string(value));
    return doc;
  }
}

}  // namespace

void apply_override(ParsedDeck::Impl& deck, const std::string& raw, std::size_t index) {
  ParsedDeck::Impl::Override override{"--set " + raw, {}, index};
  const Origin origin = override.origin();
  const auto eq = raw.find('=');
  const std::vector<std::string> parts = split_path(trim(std::string_view(raw).substr(0, eq)));
  if (eq == std::string::npos || !is_valid_path(parts)) {
    deck.problems.add(origin, "expected table.key=value, as in --set nbody.n=1000");
    return;
  }
  const std::string_view value = trim(std::string_view(raw).substr(eq + 1));
  if (value.empty()) {
    deck.problems.add(origin, "no value after '=' (an empty string is written \"\")");
    return;
  }
  auto doc = parse_value(value, origin, deck.problems);
  if (!doc) return;
  override.value = std::string(value);

  // Walk (creating as needed) the tables above the key.
  toml::table* table = &deck.root;
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (path.empty() ? "" : ".") + parts[i];
    toml::node* child = table->get(parts[i]);
    if (!child) {
      child = &table->insert(parts[i], toml::table{}).first->second;
      deck.set_by.emplace(path, override);
    }
    if (auto* array = child->as_array(); array && array->is_array_of_tables()) {
      deck.problems.add(origin, fmt::format("[[{}]] is an array of tables, which --set cannot reach "
                                            "into; edit the deck instead", path));
      return;
    }
    table = child->as_table();
    if (!table) {
      deck.problems.add(origin, fmt::format("{} is a value, not a table", path));
      return;
    }
  }
  path += "." + parts.back();
  doc->get("v")->visit([&](auto& node) { table->insert_or_assign(parts.back(), std::move(node)); });
  deck.set_by.insert_or_assign(path, override);
}

}  // namespace tessera::deck::detail
