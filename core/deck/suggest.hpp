#pragma once
// "Did you mean ...?": the nearest valid name to a misspelt one, offered only when it is close
// enough to be a plausible typo.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tessera::deck {

// Optimal-string-alignment (Damerau-Levenshtein) distance, ignoring ASCII case: insertions,
// deletions, substitutions and swaps of adjacent characters each cost 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `typed` when within max(1, longer length / 3) edits and not a
// complete rewrite; ties go to the earlier candidate.
std::optional<std::string> nearest(std::string_view typed, std::span<const std::string> candidates);

// "; did you mean 'dt'?" (open/close are the quotes), or "" when nothing is close.
std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates,
                         std::string_view open = "'", std::string_view close = "'");

}  // namespace tessera::deck
