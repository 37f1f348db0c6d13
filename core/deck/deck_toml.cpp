// Deck::to_toml: the resolved deck as TOML text, every key of the schema with its value, so the
// text alone reproduces the run (rank 0 broadcasts it; checkpoints and outputs store it).
#include <fmt/format.h>

#include "core/deck/config.hpp"
#include "core/deck/impl/config_access.hpp"

namespace tessera::deck {

namespace {

std::string join_path(const std::string& a, std::string_view b) {
  return a.empty() ? std::string(b) : a + "." + std::string(b);
}

// Comments must stay on one line.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

class TomlWriter {
 public:
  explicit TomlWriter(const Schema& schema, std::string& out) : schema_(schema), out_(out) {}

  // The tables under `parent`, whose keys `config` stores under `rel` ("" for the whole deck
  // and for an element of an array of tables, whose keys are relative to it).
  void children(std::string_view parent, const Config& config, const std::string& rel) {
    for (const TableSpec* child : schema_.children(parent)) {
      const std::string child_rel = join_path(rel, last_component(child->name));
      if (!child->array) {
        out_ += fmt::format("\n[{}]\n", child->name);
        keys(*child, config, child_rel);
        children(child->name, config, child_rel);
        continue;
      }
      for (const Config& element : config.get_table_array(child_rel)) {
        out_ += fmt::format("\n[[{}]]\n", child->name);
        keys(*child, element, "");
        children(child->name, element, "");
      }
    }
  }

 private:
  void keys(const TableSpec& spec, const Config& config, const std::string& rel) {
    for (const KeySpec& key : spec.keys) {
      // Unset optional keys are left out, as the user left them out.
      if (const auto* entry = detail::ConfigAccess::find(config, join_path(rel, key.name))) {
        out_ += fmt::format("{} = {}\n", key.name, to_toml_literal(entry->value));
      }
    }
  }

  const Schema& schema_;
  std::string& out_;
};

}  // namespace

std::string Deck::to_toml() const {
  std::string out = fmt::format("# tessera deck resolved from {}: every key, defaults filled in\n",
                                one_line(source_name()));
  for (const std::string& o : overrides()) out += "# --set " + one_line(o) + "\n";
  TomlWriter(schema(), out).children("", *this, "");
  return out;
}

}  // namespace tessera::deck
