#pragma once
// The typed values a deck key can hold, and how they are spelled: in TOML (so a resolved deck
// reads back exactly) and in messages and the reference.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::deck {

enum class KeyType { integer, floating, boolean, string, choice, integer_array, float_array };

using IntArray = std::vector<std::int64_t>;
using FloatArray = std::vector<double>;
// One alternative per storage type; a `choice` key holds a std::string.
using Value = std::variant<std::int64_t, double, bool, std::string, IntArray, FloatArray>;

// "integer", "float", "boolean", "string", "choice", "integer array", "float array".
std::string_view type_name(KeyType type);

bool is_array(KeyType type);

// Whether `value` has the storage alternative that keys of `type` hold.
bool holds(const Value& value, KeyType type);

// Shortest text that reads back to the same double, always recognisable as a TOML float
// ("1.0", not "1"; "inf", "nan", "1e+20").
std::string format_float(double x);

// A TOML basic string: "..." with quotes, backslashes and control characters escaped.
std::string quote(std::string_view text);

// The value as a TOML literal: 42, 0.5, true, "text", [1, 2, 3], [0.5, 1.0].
std::string to_toml_literal(const Value& value);

}  // namespace tessera::deck
