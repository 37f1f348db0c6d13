#include "app/restart_check.hpp"

#include <fmt/format.h>

#include <map>
#include <sstream>
#include <toml++/toml.h>

#include "core/error.hpp"

namespace tessera::app {
namespace {

// Keys a restart may change whatever the solver (prefixes of dotted names).
const std::vector<std::string> kCommonMayChange = {
    "run.steps",   "run.end_time", "run.backend", "run.transport", "run.output_dir", "run.status_interval",
    "run.profile",
    "output.",     "diagnostics.", "checkpoint.",
};

bool may_change(const std::string& key, const SolverInfo& solver) {
  auto matches = [&](const std::string& prefix) {
    if (prefix.ends_with(".")) return key.rfind(prefix, 0) == 0;
    return key == prefix || key.rfind(prefix + ".", 0) == 0 || key.rfind(prefix + "[", 0) == 0;
  };
  for (const std::string& p : kCommonMayChange)
    if (matches(p)) return true;
  for (const std::string& p : solver.restart_may_change)
    if (matches(p)) return true;
  return false;
}

void flatten(const toml::node& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (const toml::table* t = node.as_table()) {
    for (const auto& [k, v] : *t) flatten(v, path.empty() ? std::string(k.str()) : path + "." + std::string(k.str()), out);
    return;
  }
  if (const toml::array* a = node.as_array(); a && a->is_array_of_tables()) {
    for (std::size_t i = 0; i < a->size(); ++i) flatten(*a->get(i), fmt::format("{}[{}]", path, i), out);
    out[path + ".count"] = std::to_string(a->size());
    return;
  }
  std::ostringstream s;
  if (const toml::array* a = node.as_array())
    s << *a;
  else
    node.visit([&](const auto& v) {
      if constexpr (toml::is_value<decltype(v)>) s << v;
    });
  out[path] = s.str();
}

std::map<std::string, std::string> flat(const std::string& text, const std::string& name) {
  std::map<std::string, std::string> out;
  try {
    flatten(toml::parse(text, name), "", out);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("the deck stored in {} cannot be parsed: {}", name, e.description()));
  }
  return out;
}

}  // namespace

void check_restart_deck(const deck::Deck& now, const std::string& checkpoint_deck_text,
                        const std::filesystem::path& checkpoint, const SolverInfo& solver) {
  const auto before = flat(checkpoint_deck_text, checkpoint.string());
  const auto after = flat(now.to_toml(), now.source_name());
  std::vector<std::string> differences;
  auto note = [&](const std::string& key, const std::string& was, const std::string& is) {
    if (may_change(key, solver)) return;
    std::string where;
    try {
      where = fmt::format(" ({})", now.where(key));
    } catch (const std::exception&) {  // keys inside arrays of tables have no where()
    }
    differences.push_back(fmt::format("{} = {} in the checkpoint, {} now{}", key, was, is, where));
  };
  for (const auto& [key, value] : before) {
    const auto it = after.find(key);
    if (it == after.end())
      note(key, value, "(absent)");
    else if (it->second != value)
      note(key, value, it->second);
  }
  for (const auto& [key, value] : after)
    if (!before.count(key)) note(key, "(absent)", value);
  if (differences.empty()) return;
  std::string list;
  for (const std::string& d : differences) list += "\n  " + d;
  throw InputError(fmt::format("cannot restart from {}: the deck differs from the one the checkpoint was written "
                               "with in what the run computes:{}\nrestart with the checkpoint's values (its deck is "
                               "stored in /manifest, attribute deck_text), or start a new run",
                               checkpoint.string(), list));
}

}  // namespace tessera::app
