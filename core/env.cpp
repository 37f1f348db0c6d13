#include "core/env.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

#include "core/error.hpp"

namespace tessera {

std::optional<std::vector<std::string>> env_list(const char* name) {
  const char* text = std::getenv(name);
  if (!text) return std::nullopt;
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::optional<std::vector<long long>> env_integers(const char* name) {
  const auto items = env_list(name);
  if (!items) return std::nullopt;
  std::vector<long long> out;
  for (const std::string& item : *items) {
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size()) throw InputError(fmt::format("{}: '{}' is not an integer", name, item));
    out.push_back(value);
  }
  return out;
}

}  // namespace tessera
