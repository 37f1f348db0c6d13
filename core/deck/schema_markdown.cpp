// Schema::to_markdown: the deck reference of the user guide, generated so it cannot drift from
// what the code accepts.
#include <fmt/format.h>

#include "core/deck/schema.hpp"

namespace tessera::deck {

namespace {

// Table cells cannot hold '|' or line breaks.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string code(std::string_view text) { return text.empty() ? std::string() : fmt::format("`{}`", cell(text)); }

std::string type_cell(const KeySpec& key) {
  if (key.file) return "path";
  if (key.type != KeyType::choice) return key.type_description();
  std::string out = "one of ";
  for (std::size_t i = 0; i < key.choices.size(); ++i) out += (i > 0 ? ", " : "") + code(key.choices[i]);
  return out;
}

std::string default_cell(const KeySpec& key) {
  if (key.default_value) return code(to_toml_literal(*key.default_value));
  return key.optional ? "optional" : "**required**";
}

std::string range_cell(const KeySpec& key) {
  if (key.range.empty()) return "";
  return (is_array(key.type) ? "each " : "") + key.range.describe();
}

}  // namespace

std::string Schema::to_markdown() const {
  std::string out;
  for (const TableSpec& table : tables_) {
    out += fmt::format("## `{}`\n\n", table.header());
    if (!table.description.empty()) out += table.description + "\n\n";
    if (table.array) out += fmt::format("Repeat the `{}` block once per element.\n\n", table.header());
    if (table.keys.empty()) {
      out += "No keys of its own.\n\n";
      continue;
    }
    out += "| Key | Type | Default | Range | Unit | Description |\n";
    out += "|-----|------|---------|-------|------|-------------|\n";
    for (const KeySpec& key : table.keys) {
      out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", key.name, type_cell(key), default_cell(key),
                         cell(range_cell(key)), cell(key.unit), cell(key.description));
    }
    out += "\n";
  }
  return out;
}

}  // namespace tessera::deck
