// The allowed words core/env_registry.cpp declares for a solver's knobs are that solver's
// words (core cannot include the solver, so the two are compared here).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/env.hpp"
#include "solvers/bfs/algorithm.hpp"
#include "solvers/bfs/search.hpp"

using namespace tessera;

namespace {
std::vector<std::string> declared_choices(std::string_view name) {
  std::vector<std::string> out;
  std::string text(env::lookup(name).choices);
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}
}  // namespace

TEST(EnvChoices, BfsAlgorithms) {
  EXPECT_EQ(declared_choices("TESSERA_BENCH_BFS_ALGORITHMS"), bfs::algorithm_names());
}

TEST(EnvChoices, BfsExchangeModes) {
  std::vector<std::string> modes;
  for (bfs::ExchangeMode m : {bfs::ExchangeMode::automatic, bfs::ExchangeMode::peer, bfs::ExchangeMode::transport})
    modes.emplace_back(bfs::to_string(m));
  EXPECT_EQ(declared_choices("TESSERA_BENCH_BFS_EXCHANGE"), modes);
}
