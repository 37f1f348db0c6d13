#include "core/deck/impl/describe.hpp"

#include <fmt/format.h>

#include <sstream>

namespace tessera::deck::detail {

std::string show(const toml::node& node) {
  std::string text;
  if (auto s = node.value_exact<std::string>()) {
    text = quote(*s);
  } else if (auto i = node.value_exact<std::int64_t>()) {
    text = fmt::format("{}", *i);
  } else if (auto d = node.value_exact<double>()) {
    text = format_float(*d);
  } else if (node.is_table()) {
    return "{...}";
  } else {
    std::ostringstream out;
    out << toml::toml_formatter{node, toml::format_flags::none};
    text = out.str();
  }
  constexpr std::size_t longest = 60;
  if (text.size() > longest) text = text.substr(0, longest - 3) + "...";
  return text;
}

std::string describe(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string (" + show(node) + ")";
    case toml::node_type::integer: return "an integer (" + show(node) + ")";
    case toml::node_type::floating_point: return "a float (" + show(node) + ")";
    case toml::node_type::boolean: return "a boolean (" + show(node) + ")";
    case toml::node_type::array: return "an array (" + show(node) + ")";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: return "a date (" + show(node) + ")";
    case toml::node_type::time: return "a time (" + show(node) + ")";
    case toml::node_type::date_time: return "a date-time (" + show(node) + ")";
    case toml::node_type::none: break;
  }
  return "nothing";
}

std::string expected(const KeySpec& key) {
  switch (key.type) {
    case KeyType::integer: return "an integer";
    case KeyType::floating: return "a float";
    case KeyType::boolean: return "a boolean (true or false)";
    case KeyType::string: return "a string";
    case KeyType::choice: return "a string, " + key.type_description();
    case KeyType::integer_array:
    case KeyType::float_array: return "an " + key.type_description();
  }
  return "?";
}

}  // namespace tessera::deck::detail
