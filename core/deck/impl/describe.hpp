#pragma once
// How a TOML node reads in a message: "a string (\"0.1\")", "an integer (3)", "a table".
#include <toml++/toml.h>

#include <string>

#include "core/deck/schema.hpp"

namespace tessera::deck::detail {

// The node as written, shortened when long: 3, 0.5, "text", [1, 2], 1979-05-27.
std::string show(const toml::node& node);

// "a string (\"0.1\")", "an integer (3)", "a float (1000.0)", "an array ([1, 2])", "a table".
std::string describe(const toml::node& node);

// What a key needs: "an integer", "a float", "a string, one of \"a\", \"b\"", "an array of 3 floats".
std::string expected(const KeySpec& key);

}  // namespace tessera::deck::detail
