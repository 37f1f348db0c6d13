#include "core/env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include "core/error.hpp"

namespace tessera::env {
namespace {

bool is_list(Type t) { return t == Type::integers || t == Type::words; }

std::string_view type_name(Type t) {
  switch (t) {
    case Type::boolean: return "flag";
    case Type::integer: return "integer";
    case Type::integers: return "list of integers";
    case Type::choice: return "choice";
    case Type::words: return "list of words";
    case Type::string: return "string";
  }
  return "?";
}

const Variable& declared(std::string_view name, Type type) {
  const Variable& v = lookup(name);
  if (v.type != type)
    throw std::logic_error(fmt::format("environment variable {} is a {}, read as a {}", name, type_name(v.type),
                                       type_name(type)));
  return v;
}

// The text to parse and whether it came from the environment (else from the declaration).
struct Text {
  std::string value;
  bool from_environment;
};

std::optional<Text> text_of(const Variable& v) {
  const std::string name(v.name);
  if (const char* set = std::getenv(name.c_str()); set && (*set != '\0' || is_list(v.type)))
    return Text{set, true};
  if (!v.fallback.empty()) return Text{std::string(v.fallback), false};
  return std::nullopt;
}

// A bad value: the user's (InputError) or the declaration's (a bug).
[[noreturn]] void refuse(const Variable& v, const Text& t, std::string_view problem) {
  if (!t.from_environment)
    throw std::logic_error(fmt::format("the declared default '{}' of {} is invalid: {}", t.value, v.name, problem));
  throw InputError(
      fmt::format("environment variable {}='{}': {} (expected {})", v.name, t.value, problem, allowed(v)));
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string> split(std::string_view text, char sep = ',') {
  std::vector<std::string> out;
  while (true) {
    const std::size_t at = text.find(sep);
    const std::string_view item = trim(text.substr(0, at));
    if (!item.empty()) out.emplace_back(item);
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return out;
}

std::string range_text(const Variable& v) {
  if (v.min != LLONG_MIN && v.max != LLONG_MAX) return fmt::format(">= {} and <= {}", v.min, v.max);
  if (v.min != LLONG_MIN) return fmt::format(">= {}", v.min);
  if (v.max != LLONG_MAX) return fmt::format("<= {}", v.max);
  return {};
}

long long parse_integer(const Variable& v, const Text& t, const std::string& item) {
  long long value = 0;
  const char* end = item.data() + item.size();
  const char* first = item.data() + (item.starts_with('+') ? 1 : 0);
  const auto [ptr, ec] = std::from_chars(first, end, value);
  if (ec == std::errc::result_out_of_range) refuse(v, t, fmt::format("'{}' is out of range", item));
  if (ec != std::errc() || ptr != end || item.empty()) refuse(v, t, fmt::format("'{}' is not an integer", item));
  if (value < v.min || value > v.max) refuse(v, t, fmt::format("{} is out of range", value));
  return value;
}

void check_choice(const Variable& v, const Text& t, const std::string& word) {
  if (v.choices.empty()) return;
  const auto allowed_words = split(v.choices);
  if (std::find(allowed_words.begin(), allowed_words.end(), word) == allowed_words.end())
    refuse(v, t, fmt::format("'{}' is not allowed", word));
}

std::string listing(std::string_view choices, std::string_view quote = "") {
  std::string out;
  for (const std::string& c : split(choices)) out += fmt::format("{}{}{}{}", out.empty() ? "" : ", ", quote, c, quote);
  return out;
}

// What `v` accepts, its words in `quote`s.
std::string allowed_text(const Variable& v, std::string_view quote) {
  const std::string range = range_text(v);
  switch (v.type) {
    case Type::boolean: return "1/0, true/false, on/off or yes/no";
    case Type::integer: return range.empty() ? "an integer" : "an integer " + range;
    case Type::integers: return range.empty() ? "comma-separated integers" : "comma-separated integers, each " + range;
    case Type::choice: return "one of " + listing(v.choices, quote);
    case Type::words:
      if (v.choices.empty()) return "comma-separated words";
      return "comma-separated, each one of " + listing(v.choices, quote);
    case Type::string: return "any text";
  }
  return {};
}

}  // namespace

const Variable& lookup(std::string_view name) {
  for (const Variable& v : registry())
    if (v.name == name) return v;
  throw std::logic_error(
      fmt::format("environment variable {} is read but not declared in core/env_registry.cpp", name));
}

std::optional<bool> get_boolean(std::string_view name) {
  const Variable& v = declared(name, Type::boolean);
  const auto t = text_of(v);
  if (!t) return std::nullopt;
  std::string lower = std::string(trim(t->value));
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view yes : {"1", "true", "on", "yes"})
    if (lower == yes) return true;
  for (std::string_view no : {"0", "false", "off", "no"})
    if (lower == no) return false;
  refuse(v, *t, fmt::format("'{}' is not a flag", t->value));
}

std::optional<long long> get_integer(std::string_view name) {
  const Variable& v = declared(name, Type::integer);
  const auto t = text_of(v);
  if (!t) return std::nullopt;
  return parse_integer(v, *t, std::string(trim(t->value)));
}

std::optional<std::vector<long long>> get_integers(std::string_view name) {
  const Variable& v = declared(name, Type::integers);
  const auto t = text_of(v);
  if (!t) return std::nullopt;
  std::vector<long long> out;
  for (const std::string& item : split(t->value)) out.push_back(parse_integer(v, *t, item));
  return out;
}

std::optional<std::string> get_choice(std::string_view name) {
  const Variable& v = declared(name, Type::choice);
  const auto t = text_of(v);
  if (!t) return std::nullopt;
  const std::string word(trim(t->value));
  check_choice(v, *t, word);
  return word;
}

std::optional<std::vector<std::string>> get_words(std::string_view name) {
  const Variable& v = declared(name, Type::words);
  const auto t = text_of(v);
  if (!t) return std::nullopt;
  std::vector<std::string> out = split(t->value);
  for (const std::string& word : out) check_choice(v, *t, word);
  return out;
}

std::optional<std::string> get_string(std::string_view name) {
  const Variable& v = declared(name, Type::string);
  const auto t = text_of(v);
  if (!t) return std::nullopt;
  return t->value;
}

std::string allowed(const Variable& v) { return allowed_text(v, ""); }

std::vector<std::string> undeclared(const char* const* environment) {
  std::vector<std::string> out;
  if (!environment) return out;
  for (; *environment; ++environment) {
    const std::string_view entry(*environment);
    const std::string_view name = entry.substr(0, entry.find('='));
    if (!name.starts_with("TESSERA_")) continue;
    const auto all = registry();
    if (std::none_of(all.begin(), all.end(), [&](const Variable& v) { return v.name == name; }))
      out.emplace_back(name);
  }
  return out;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const Variable& v : registry()) out.emplace_back(v.name);
  return out;
}

namespace {

// Table cells cannot hold '|' or line breaks.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

std::string markdown_table(Scope scope) {
  std::string out =
      "| Variable | Type | Default | Allowed | Read by | Effect |\n"
      "|----------|------|---------|---------|---------|--------|\n";
  for (const Variable& v : registry()) {
    if (v.scope != scope) continue;
    const std::string default_cell = v.fallback.empty() ? cell(v.default_doc) : fmt::format("`{}`", cell(v.fallback));
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", v.name, type_name(v.type), default_cell,
                       cell(allowed_text(v, "`")), cell(v.used_by), cell(v.help));
  }
  return out;
}

}  // namespace

std::string to_markdown() {
  std::string out =
      "# Environment variables\n\n"
      "Generated by `tessera keys --env` from the registry every reader goes through "
      "(core/env_registry.cpp; tests/app compares this file with it, so it cannot drift).\n\n"
      "A run is described by its deck; these variables are knobs outside it: benchmark sizes and "
      "comparisons, diagnostics, and overrides of what tessera detects about the machine. "
      "A flag takes 1/0, true/false, on/off or yes/no; lists are comma-separated; a flag, integer, "
      "choice or string set to an empty value counts as unset. A value that is not allowed is refused "
      "with the variable named. At start-up, rank 0 warns about every `TESSERA_*` variable in the "
      "environment that is not listed here, with the nearest listed name, so a misspelt knob does not "
      "silently leave the default in place.\n\n";
  out += "## Read by tessera\n\n" + markdown_table(Scope::executable);
  out += "\n## Read by the scripts\n\nThe shell scripts shipped with tessera read these; the executable does "
         "not.\n\n" +
         markdown_table(Scope::scripts);
  out += "\n## Test-only\n\nThe test suite sets these for its own helpers (they are listed so that tessera, "
         "run by the tests, does not warn about them). Do not set them in production.\n\n" +
         markdown_table(Scope::test);
  return out;
}

}  // namespace tessera::env
