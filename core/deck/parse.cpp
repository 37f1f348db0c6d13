#include "core/deck/parse.hpp"

#include <fmt/format.h>

#include "core/deck/impl/parsed.hpp"
#include "core/deck/impl/problems.hpp"

namespace tessera::deck {

namespace detail {
void apply_override(ParsedDeck::Impl& deck, const std::string& raw, std::size_t index);  // overrides.cpp
}

std::optional<std::string> ParsedDeck::solver() const {
  if (auto solver = impl_->root["run"]["solver"].value<std::string>()) return *solver;
  return std::nullopt;
}

const std::string& ParsedDeck::source_name() const { return impl_->source_name; }
const std::string& ParsedDeck::source_text() const { return impl_->source_text; }
const std::vector<std::string>& ParsedDeck::overrides() const { return impl_->overrides; }

ParsedDeck parse_deck(std::string_view text, std::string source_name,
                      std::span<const std::string> overrides) {
  auto deck = std::make_shared<ParsedDeck::Impl>();
  deck->source_name = std::move(source_name);
  deck->source_text = std::string(text);
  deck->overrides.assign(overrides.begin(), overrides.end());
  try {
    deck->root = toml::parse(deck->source_text, std::string_view(deck->source_name));
  } catch (const toml::parse_error& e) {
    detail::Problems syntax;
    const auto& at = e.source().begin;
    syntax.add({deck->source_name, at.line, at.column},
               fmt::format("TOML syntax error: {}", e.description()));
    syntax.throw_if_any(deck->source_name);
  }
  for (std::size_t i = 0; i < deck->overrides.size(); ++i) detail::apply_override(*deck, deck->overrides[i], i);
  return ParsedDeck(std::move(deck));
}

}  // namespace tessera::deck
