// --set table.key=value: parsed as a TOML value and written into the parsed deck before
// validation, remembering which paths it set so that messages name the override. An element
// of an array of tables is named by its index: --set fdtd.source.0.position=[...] (or
// fdtd.source[0].position, as messages write it) sets `position` of the first [[fdtd.source]].
#include <fmt/format.h>
#include <fmt/ranges.h>

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

bool is_index(std::string_view part) {
  return !part.empty() && part.size() <= 9 && part.find_first_not_of("0123456789") == std::string_view::npos;
}

// "fdtd.source[1].position" -> "fdtd.source.1.position" (the notation of messages is accepted).
std::string indices_as_parts(std::string_view path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const std::size_t close = path[i] == '[' ? path.find(']', i) : std::string_view::npos;
    if (close != std::string_view::npos && is_index(path.substr(i + 1, close - i - 1))) {
      out += '.';
      out += path.substr(i + 1, close - i - 1);
      i = close;
    } else {
      out += path[i];
    }
  }
  return out;
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

std::string elements_text(std::size_t n) {
  if (n == 0) return "no elements";
  return n == 1 ? "1 element (index 0)" : fmt::format("{} elements (indices 0 to {})", n, n - 1);
}

}  // namespace

void apply_override(ParsedDeck::Impl& deck, const std::string& raw, std::size_t index) {
  ParsedDeck::Impl::Override override{"--set " + raw, {}, index};
  const Origin origin = override.origin();
  const auto eq = raw.find('=');
  const std::vector<std::string> parts =
      split_path(indices_as_parts(trim(std::string_view(raw).substr(0, eq))));
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

  // Walk (creating as needed) the tables above the key; an array of tables is entered through
  // the index that follows its name. `path` is in the notation of validation's messages
  // ("fdtd.source[0].position"), so that they name this override.
  toml::table* table = &deck.root;
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (path.empty() ? "" : ".") + parts[i];
    toml::node* child = table->get(parts[i]);
    if (!child) {
      if (is_index(parts[i + 1])) {
        deck.problems.add(origin, fmt::format("{}.{}: the deck has no [[{}]] to take element {} of", path,
                                              parts[i + 1], path, parts[i + 1]));
        return;
      }
      child = &table->insert(parts[i], toml::table{}).first->second;
      deck.set_by.emplace(path, override);
    }
    if (auto* array = child->as_array(); array && (array->is_array_of_tables() || is_index(parts[i + 1]))) {
      if (!array->is_array_of_tables() && !array->empty()) {
        deck.problems.add(origin, fmt::format("{} is an array of values, not of tables: set it whole, as in "
                                              "--set {}=[...]", path, path));
        return;
      }
      const std::string rest = fmt::format("{}", fmt::join(parts.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                                             parts.end(), "."));
      if (!is_index(parts[i + 1])) {
        deck.problems.add(origin, fmt::format("[[{}]] is an array of tables with {}: name an element by its index, "
                                              "as in --set {}.0.{}={}", path, elements_text(array->size()), path,
                                              rest, value));
        return;
      }
      const std::size_t element = std::stoul(parts[i + 1]);
      if (element >= array->size()) {
        deck.problems.add(origin, fmt::format("{}.{}: there is no element {}: [[{}]] has {} in the deck", path,
                                              parts[i + 1], element, path, elements_text(array->size())));
        return;
      }
      if (i + 2 >= parts.size()) {
        deck.problems.add(origin, fmt::format("{}.{} is a whole [[{}]] element: set one of its keys, as in "
                                              "--set {}.{}.position=...", path, element, path, path, element));
        return;
      }
      path = fmt::format("{}[{}]", path, element);
      table = array->get(element)->as_table();
      ++i;  // the index
      continue;
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
