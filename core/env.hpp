#pragma once
// Environment variables: every TESSERA_* variable tessera, its scripts or its tests read is
// declared once, in the table of core/env_registry.cpp (name, type, default, allowed values,
// what it does), and read only through the typed getters below, so a bad value is refused
// with the variable named, `tessera keys --env` (docs/environment.md) lists them all, and an
// unknown TESSERA_* variable in the environment can be reported as a likely typo.
#include <climits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::env {

enum class Type {
  boolean,   // 1/0, true/false, on/off, yes/no (any case)
  integer,   // one integer in [min, max]
  integers,  // comma-separated integers, each in [min, max]
  choice,    // one of `choices`
  words,     // comma-separated words, each one of `choices` (when given; else the reader checks them)
  string,    // any text (a path)
};

// Who reads a variable: the executable, the shell scripts shipped with it, or only the test suite.
enum class Scope { executable, scripts, test };

struct Variable {
  std::string_view name;
  Type type;
  Scope scope;
  // The value when the variable is unset (or, for a scalar type, set but empty), in the
  // variable's own syntax; empty: none, the reader decides (and `default_doc` says what).
  std::string_view fallback = {};
  std::string_view default_doc = {};  // the default as documented when there is no `fallback`
  long long min = LLONG_MIN;          // integer, integers
  long long max = LLONG_MAX;
  std::string_view choices = {};      // choice, words: the allowed words, comma-separated
  std::string_view used_by = {};      // the command, script or test that reads it
  std::string_view help = {};         // one line: what it does
};

// Every declared variable, in the order of the table.
std::span<const Variable> registry();

// The declaration of `name`; std::logic_error (a bug in the reader) when it is not declared.
const Variable& lookup(std::string_view name);

// Typed getters: the variable's value when set, else its declared fallback, else nullopt.
// A scalar (boolean, integer, choice, string) set to "" counts as unset; a list set to "" is
// the empty list. Items of lists are trimmed of spaces and empty items dropped. A value that
// does not parse or is not allowed throws InputError naming the variable, the value and what
// is allowed; asking for an undeclared name, or with a getter of another type, throws
// std::logic_error.
std::optional<bool> get_boolean(std::string_view name);
std::optional<long long> get_integer(std::string_view name);
std::optional<std::vector<long long>> get_integers(std::string_view name);
std::optional<std::string> get_choice(std::string_view name);
std::optional<std::vector<std::string>> get_words(std::string_view name);
std::optional<std::string> get_string(std::string_view name);

// What a variable accepts, in words ("an integer >= 1", "comma-separated: device, host").
std::string allowed(const Variable& v);

// The names in `environment` (NAME=value entries, as `environ` holds them) that start with
// TESSERA_ and are not declared, in order.
std::vector<std::string> undeclared(const char* const* environment);

// Every declared name (for "did you mean ...?").
std::vector<std::string> names();

// The registry as Markdown (docs/environment.md is this text).
std::string to_markdown();

}  // namespace tessera::env
