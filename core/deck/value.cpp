#include "core/deck/value.hpp"

#include <fmt/format.h>

namespace tessera::deck {

std::string_view type_name(KeyType type) {
  switch (type) {
    case KeyType::integer: return "integer";
    case KeyType::floating: return "float";
    case KeyType::boolean: return "boolean";
    case KeyType::string: return "string";
    case KeyType::choice: return "choice";
    case KeyType::integer_array: return "integer array";
    case KeyType::float_array: return "float array";
  }
  return "?";
}

bool is_array(KeyType type) { return type == KeyType::integer_array || type == KeyType::float_array; }

bool holds(const Value& value, KeyType type) {
  switch (type) {
    case KeyType::integer: return std::holds_alternative<std::int64_t>(value);
    case KeyType::floating: return std::holds_alternative<double>(value);
    case KeyType::boolean: return std::holds_alternative<bool>(value);
    case KeyType::string:
    case KeyType::choice: return std::holds_alternative<std::string>(value);
    case KeyType::integer_array: return std::holds_alternative<IntArray>(value);
    case KeyType::float_array: return std::holds_alternative<FloatArray>(value);
  }
  return false;
}

std::string format_float(double x) {
  std::string text = fmt::format("{}", x);  // shortest round-trip representation
  // "1" would read back as a TOML integer; "inf"/"nan"/"1e+20" are already floats.
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
  return out;
}

namespace {
template <class T, class F>
std::string join_array(const std::vector<T>& items, F&& format_one) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += format_one(items[i]);
  }
  return out + "]";
}
}  // namespace

std::string to_toml_literal(const Value& value) {
  struct Visitor {
    std::string operator()(std::int64_t v) const { return fmt::format("{}", v); }
    std::string operator()(double v) const { return format_float(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return quote(v); }
    std::string operator()(const IntArray& v) const {
      return join_array(v, [](std::int64_t x) { return fmt::format("{}", x); });
    }
    std::string operator()(const FloatArray& v) const { return join_array(v, format_float); }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace tessera::deck
