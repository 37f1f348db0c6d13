// Choosing the solver's schema from [run] solver: a registered solver's tables are checked, an
// unknown or missing solver is reported with the registered names, and tables of another
// solver are named as such.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deck_test_schemas.hpp"

namespace tessera::deck::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The run-level tables without run.solver: the catalog declares it.
Schema run_tables() {
  Schema s;
  s.table("run", "what to run").integer("steps", "number of steps").min(0).default_value(10);
  s.table("output", "outputs").integer("every", "output cadence").min(0).default_value(0);
  return s;
}

SolverCatalog catalog(Schema run = run_tables()) {
  return SolverCatalog{std::move(run), {"nbody", "fdtd", "scan"}, [](std::string_view solver) {
                         if (solver == "nbody") return nbody_schema();
                         if (solver == "fdtd") return fdtd_schema();
                         Schema s;
                         s.table("scan", "prefix sum").integer("n", "elements").min(1).default_value(1024);
                         return s;
                       }};
}

TEST(DeckCatalog, SolverPicksItsSchema) {
  const Deck deck = load_deck(catalog(), "[run]\nsolver = \"fdtd\"\n[fdtd]\ncells = [4, 4, 4]\n", "demo.toml");
  EXPECT_EQ(deck.get_string("run.solver"), "fdtd");
  EXPECT_THAT(deck.get_int_array("fdtd.cells"), testing::ElementsAre(4, 4, 4));
  EXPECT_EQ(deck.get_int("run.steps"), 10);
  EXPECT_EQ(deck.schema().find_table("nbody"), nullptr);
  EXPECT_EQ(deck.schema().find_table("run")->find_key("solver")->type, KeyType::choice);
}

TEST(DeckCatalog, SolverFromAnOverride) {
  const Deck deck = load_deck(catalog(), "[run]\nsolver = \"fdtd\"\n", "demo.toml",
                              std::vector<std::string>{"run.solver=scan", "scan.n=64"});
  EXPECT_EQ(deck.get_int("scan.n"), 64);
}

TEST(DeckCatalog, UnknownSolverListsTheRegisteredOnesAndSuggests) {
  const std::string text = R"([run]
solver = "nbdy"
stesp = 3

[nbody]
dt = 0.1
)";
  // The run table is still checked; the solver's tables cannot be, so they are not flagged.
  try {
    load_deck(catalog(), text, "demo.toml");
    FAIL() << "no error";
  } catch (const DeckError& e) {
    EXPECT_THAT(e.problems(), ElementsAre("demo.toml:2:10: run.solver = \"nbdy\" is not one of \"nbody\", \"fdtd\", "
                                          "\"scan\"; did you mean \"nbody\"?",
                                          "demo.toml:3:1: unknown key 'stesp' in [run]; did you mean 'steps'?"));
  }
}

TEST(DeckCatalog, MissingSolverIsReported) {
  try {
    load_deck(catalog(), "[run]\nsteps = 3\n\n[nbody]\ndt = 0.1\n", "demo.toml");
    FAIL() << "no error";
  } catch (const DeckError& e) {
    EXPECT_THAT(e.problems(), ElementsAre("demo.toml:1:1: missing required key 'solver' in [run]: the solver to "
                                          "run (one of \"nbody\", \"fdtd\", \"scan\")"));
  }
}

TEST(DeckCatalog, TableOfAnotherSolverIsNamedAsSuch) {
  const std::string text = "[run]\nsolver = \"nbody\"\n[nbody]\ndt = 0.1\n[fdtd]\ncells = [1, 1, 1]\n[outptu]\nevery = 1\n";
  EXPECT_THAT(
      [&] {
        try {
          load_deck(catalog(), text, "demo.toml");
        } catch (const DeckError& e) {
          return e.problems();
        }
        return std::vector<std::string>{};
      }(),
      ElementsAre("demo.toml:5:1: table [fdtd] belongs to solver 'fdtd', but run.solver is 'nbody'",
                  "demo.toml:7:1: unknown table [outptu]; did you mean [output]?"));
}

TEST(DeckCatalog, AppDeclaredSolverKeyKeepsItsDescriptionAndDefault) {
  Schema run = run_tables();
  run.table("run").string("solver", "which workload to run").default_value("scan");
  const SolverCatalog c = catalog(run);
  const Deck deck = load_deck(c, "[scan]\nn = 8\n", "demo.toml");  // no [run] solver: the default
  EXPECT_EQ(deck.get_string("run.solver"), "scan");
  EXPECT_EQ(deck.get_int("scan.n"), 8);
  const Schema composed = c.compose("nbody");
  EXPECT_EQ(composed.find_table("run")->find_key("solver")->description, "which workload to run");
  EXPECT_NE(composed.find_table("nbody"), nullptr);
  EXPECT_THROW(c.compose("bfs"), std::logic_error);
}

TEST(DeckCatalog, TwoStepValidationWithAChoiceSolverReportsOnlyTheSolver) {
  // The app's own composition: run.solver a choice of the registered names; an unknown solver
  // gets the run tables only, and its tables are not each called unknown.
  Schema run = run_tables();
  run.table("run").choice("solver", "the solver", {"nbody", "fdtd"});
  const ParsedDeck parsed = parse_deck("[run]\nsolver = \"fdt\"\n[fdtd]\ncells = [2, 2, 2]\n", "demo.toml");
  try {
    validate_deck(run, parsed);
    FAIL() << "no error";
  } catch (const DeckError& e) {
    EXPECT_THAT(e.problems(), ElementsAre("demo.toml:2:10: run.solver = \"fdt\" is not one of \"nbody\", \"fdtd\"; "
                                          "did you mean \"fdtd\"?"));
  }
}

}  // namespace
}  // namespace tessera::deck::test
