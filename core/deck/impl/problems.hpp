#pragma once
// Collects the problems of one deck with their positions, then throws them as one DeckError,
// sorted by line so the list reads top to bottom like the file.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/deck/deck_error.hpp"

namespace tessera::deck::detail {

// Where a value, key or table came from: a deck position, an override, or just the file.
struct Origin {
  Origin(std::string where_, std::size_t line_ = 0, std::size_t column_ = 0,
         std::optional<std::size_t> override_index_ = std::nullopt)
      : where(std::move(where_)), line(line_), column(column_), override_index(override_index_) {}

  std::string where;      // "demo.toml" or "--set nbody.n=3"
  std::size_t line = 0;   // 0: no position (a default, an override, a missing table)
  std::size_t column = 0;
  std::optional<std::size_t> override_index;  // which --set, to list its problems in command-line order

  std::string text() const {  // "demo.toml:5:6"
    return line == 0 ? where : where + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
  std::string line_text() const {  // "demo.toml:5", for Config::where()
    return line == 0 ? where : where + ":" + std::to_string(line);
  }
};

class Problems {
 public:
  void add(const Origin& origin, std::string message) {
    items_.push_back({rank(origin), origin.line, origin.column, origin.override_index.value_or(0),
                      origin.text() + ": " + message});
  }
  bool empty() const { return items_.empty(); }

  void throw_if_any(const std::string& source_name) {
    if (items_.empty()) return;
    // Problems in the file in line order, then those of overrides in command-line order, then
    // the rest (missing keys of absent tables) in the order found.
    std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) {
      if (a.rank != b.rank) return a.rank < b.rank;
      if (a.line != b.line) return a.line < b.line;
      if (a.column != b.column) return a.column < b.column;
      return a.override_index < b.override_index;
    });
    std::vector<std::string> lines;
    for (Item& item : items_) lines.push_back(std::move(item.text));
    throw DeckError(source_name, std::move(lines));
  }

 private:
  struct Item {
    int rank;
    std::size_t line, column, override_index;
    std::string text;
  };
  static int rank(const Origin& o) { return o.line > 0 ? 0 : o.override_index ? 1 : 2; }
  std::vector<Item> items_;
};

}  // namespace tessera::deck::detail
