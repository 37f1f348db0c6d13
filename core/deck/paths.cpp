#include "core/deck/paths.hpp"

#include <filesystem>

namespace tessera::deck {

namespace {

constexpr std::string_view pwd = "$PWD";

// "$PWD" or "$PWD/rest": the rest (possibly empty); otherwise nothing.
bool strip_pwd(std::string_view value, std::string_view& rest) {
  if (value.substr(0, pwd.size()) != pwd) return false;
  rest = value.substr(pwd.size());
  if (!rest.empty() && rest.front() != '/') return false;  // "$PWDX" is a name like any other
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  return true;
}

}  // namespace

std::string resolve_file_value(std::string_view value, std::string_view deck_path, bool from_command_line) {
  namespace fs = std::filesystem;
  if (value.empty()) return std::string(value);
  if (std::string_view rest; strip_pwd(value, rest)) return (fs::current_path() / rest).lexically_normal().string();
  const fs::path path(value);
  if (path.is_absolute() || from_command_line) return std::string(value);
  const fs::path folder = fs::path(deck_path).parent_path();  // empty for "deck.toml"
  return (fs::current_path() / folder / path).lexically_normal().string();
}

}  // namespace tessera::deck
