#include "core/deck/suggest.hpp"

#include <algorithm>
#include <vector>

namespace tessera::deck {

namespace {
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  // d[i][j]: distance between a[0, i) and b[0, j).
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> nearest(std::string_view typed, std::span<const std::string> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const std::size_t longer = std::max(typed.size(), candidate.size());
    const std::size_t d = edit_distance(typed, candidate);
    // Close enough to be a typo, and not merely "every character replaced" ('x' vs 'n').
    if (d > std::max<std::size_t>(1, longer / 3) || (d > 0 && d >= longer)) continue;
    if (!best || d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates,
                         std::string_view open, std::string_view close) {
  const auto match = nearest(typed, candidates);
  if (!match) return {};
  return "; did you mean " + std::string(open) + *match + std::string(close) + "?";
}

}  // namespace tessera::deck
