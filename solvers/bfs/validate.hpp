#pragma once
// Graph500 validation of one search (the five checks of validate_rules.hpp), distributed:
// the ranks allgather the parent and level arrays, each checks its own vertices and edges
// with its backend's kernels, and the counts are summed. On failure the report names, for
// each failed check, how many vertices or edges violate it and the smallest offending one.
#include <array>
#include <cstdint>
#include <string>

#include "solvers/bfs/backend.hpp"
#include "solvers/bfs/search.hpp"

namespace tessera::bfs {

struct ValidationReport {
  std::int64_t root = -1;
  std::array<std::int64_t, kChecks> violations{};
  std::string message;  // empty when ok; the same on every rank
  bool ok() const {
    for (auto v : violations)
      if (v != 0) return false;
    return true;
  }
};

std::string_view check_name(int check);

// Collective: validates the driver's last search from `root`.
ValidationReport validate(SearchDriver& driver, std::int64_t root);

}  // namespace tessera::bfs
