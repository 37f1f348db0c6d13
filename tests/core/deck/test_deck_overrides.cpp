// --set table.key=value: each kind of value, overrides applied before validation, and errors
// that name the override rather than the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deck_test_schemas.hpp"

namespace tessera::deck::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* const kDeck = R"([run]
solver = "nbody"

[nbody]
n = 64
dt = 0.01
)";

Deck with(std::vector<std::string> overrides) {
  return load_deck(nbody_deck_schema(), kDeck, "demo.toml", overrides);
}

TEST(DeckOverrides, IntegerReplacesTheDeckValue) {
  const Deck deck = with({"nbody.n=1000"});
  EXPECT_EQ(deck.get_int("nbody.n"), 1000);
  EXPECT_EQ(deck.where("nbody.n"), "--set nbody.n=1000");
  EXPECT_EQ(deck.where("nbody.dt"), "demo.toml:6");
  EXPECT_THAT(deck.overrides(), ElementsAre("nbody.n=1000"));
}

TEST(DeckOverrides, QuotedStringBareWordFloatBoolAndArray) {
  const Deck deck = with({"run.solver=\"nbody\"", "nbody.integrator=euler", "nbody.dt=2.5e-3",
                          "nbody.periodic=true", "nbody.box=[2, 2, 3]", "run.output_dir=/scratch/run-1"});
  EXPECT_EQ(deck.get_string("run.solver"), "nbody");
  EXPECT_EQ(deck.get_string("nbody.integrator"), "euler");
  EXPECT_EQ(deck.get_double("nbody.dt"), 2.5e-3);
  EXPECT_TRUE(deck.get_bool("nbody.periodic"));
  EXPECT_THAT(deck.get_double_array("nbody.box"), ElementsAre(2.0, 2.0, 3.0));
  EXPECT_EQ(deck.get_string("run.output_dir"), "/scratch/run-1");
}

TEST(DeckOverrides, IntegerForAFloatAndSpacesAroundTheEqualsSign) {
  const Deck deck = with({" nbody.dt = 1 "});
  EXPECT_EQ(deck.get_double("nbody.dt"), 1.0);
}

TEST(DeckOverrides, AStringKeyTakesANumberLikeValueVerbatim) {
  // output_dir = 2024 would be an integer in TOML; on the command line it means the string.
  const Deck deck = with({"run.output_dir=2024", "run.backend=cpu"});
  EXPECT_EQ(deck.get_string("run.output_dir"), "2024");
  EXPECT_EQ(deck.get_string("run.backend"), "cpu");
}

TEST(DeckOverrides, LaterOverrideWins) {
  EXPECT_EQ(with({"nbody.n=10", "nbody.n=20"}).get_int("nbody.n"), 20);
}

TEST(DeckOverrides, CreatesATableTheDeckLacks) {
  const Deck deck = with({"checkpoint.every=50"});
  EXPECT_EQ(deck.get_int("checkpoint.every"), 50);
  EXPECT_EQ(deck.where("checkpoint.every"), "--set checkpoint.every=50");
}

TEST(DeckOverrides, SuppliesARequiredKey) {
  const Deck deck = load_deck(nbody_deck_schema(), "[run]\nsolver = \"nbody\"\n", "demo.toml", std::vector<std::string>{"nbody.dt=0.5"});
  EXPECT_EQ(deck.get_double("nbody.dt"), 0.5);
}

TEST(DeckOverrides, UnknownKeyNamesTheOverrideAndSuggests) {
  EXPECT_THAT(problems_of(nbody_deck_schema(), kDeck, {"nbody.nn=3"}),
              ElementsAre("--set nbody.nn=3: unknown key 'nn' in [nbody]; did you mean 'n'?"));
}

TEST(DeckOverrides, UnknownTableNamesTheOverrideAndSuggests) {
  EXPECT_THAT(problems_of(nbody_deck_schema(), kDeck, {"nbdy.n=3"}),
              ElementsAre("--set nbdy.n=3: unknown table [nbdy]; did you mean [nbody]?"));
}

TEST(DeckOverrides, BadValuesNameTheOverride) {
  EXPECT_THAT(problems_of(nbody_deck_schema(), kDeck, {"nbody.dt=-1", "nbody.n=abc", "nbody.integrator=eulr"}),
              ElementsAre("--set nbody.dt=-1: nbody.dt = -1 is out of range: must be > 0 (s)",
                          "--set nbody.n=abc: nbody.n must be an integer, got a string (\"abc\")",
                          "--set nbody.integrator=eulr: nbody.integrator = \"eulr\" is not one of \"leapfrog\", "
                          "\"euler\", \"rk4\"; did you mean \"euler\"?"));
}

TEST(DeckOverrides, ArrayElementErrorsNameTheOverride) {
  EXPECT_THAT(problems_of(nbody_deck_schema(), kDeck, {"nbody.box=[1, 0, 1]"}),
              ElementsAre("--set nbody.box=[1, 0, 1]: nbody.box[1] = 0 is out of range: must be > 0 (m)"));
}

TEST(DeckOverrides, MalformedOverrides) {
  EXPECT_THAT(problems_of(nbody_deck_schema(), kDeck, {"n=3", "nbody.n", "nbody..n=3", "nbody.n=", "nbody.box=[1,2"}),
              ElementsAre("--set n=3: expected table.key=value, as in --set nbody.n=1000",
                          "--set nbody.n: expected table.key=value, as in --set nbody.n=1000",
                          "--set nbody..n=3: expected table.key=value, as in --set nbody.n=1000",
                          "--set nbody.n=: no value after '=' (an empty string is written \"\")",
                          testing::StartsWith("--set nbody.box=[1,2: invalid TOML value: ")));
}

const char* const kTwoSources = R"([fdtd]
cells = [4, 4, 4]

[[fdtd.source]]
position = [0, 0, 0]
amplitude = 3.0

[[fdtd.source]]
position = [1e-3, 1e-3, 1e-3]
label = "second"

[fdtd.source.shape]
radius = 2e-3
)";

TEST(DeckOverrides, IndexReachesAnElementOfAnArrayOfTables) {
  const Deck deck = load_deck(fdtd_deck_schema(), kTwoSources, "demo.toml",
                              std::vector<std::string>{"fdtd.source.1.position=[2e-3, 3e-3, 4e-3]",
                                                       "fdtd.source.0.waveform=sine", "fdtd.source.1.shape.radius=0"});
  const auto sources = deck.get_table_array("fdtd.source");
  ASSERT_EQ(sources.size(), 2u);
  // The element named changes; the other keeps the deck's values.
  EXPECT_THAT(sources[1].get_double_array("position"), ElementsAre(2e-3, 3e-3, 4e-3));
  EXPECT_EQ(sources[1].where("position"), "--set fdtd.source.1.position=[2e-3, 3e-3, 4e-3]");
  EXPECT_EQ(sources[1].get_string("label"), "second");
  EXPECT_EQ(sources[1].get_double("shape.radius"), 0.0);
  EXPECT_EQ(sources[0].get_string("waveform"), "sine");
  EXPECT_EQ(sources[0].where("waveform"), "--set fdtd.source.0.waveform=sine");
  EXPECT_THAT(sources[0].get_double_array("position"), ElementsAre(0.0, 0.0, 0.0));
  EXPECT_EQ(sources[0].get_double("amplitude"), 3.0);
  EXPECT_EQ(sources[0].where("amplitude"), "demo.toml:6");
}

TEST(DeckOverrides, TheBracketNotationOfMessagesWorksToo) {
  const Deck deck = load_deck(fdtd_deck_schema(), kTwoSources, "demo.toml",
                              std::vector<std::string>{"fdtd.source[1].amplitude=0.5"});
  EXPECT_EQ(deck.get_table_array("fdtd.source")[1].get_double("amplitude"), 0.5);
  EXPECT_EQ(deck.get_table_array("fdtd.source")[0].get_double("amplitude"), 3.0);
}

TEST(DeckOverrides, ValueErrorsInAnElementNameTheOverrideAndTheElement) {
  EXPECT_THAT(problems_of(fdtd_deck_schema(), kTwoSources, {"fdtd.source.0.waveform=square", "fdtd.source.1.colour=2"}),
              ElementsAre("--set fdtd.source.0.waveform=square: fdtd.source[0].waveform = \"square\" is not one of "
                          "\"gaussian\", \"sine\"",
                          testing::StartsWith("--set fdtd.source.1.colour=2: unknown key 'colour' in [[fdtd.source]]")));
}

TEST(DeckOverrides, ABadIndexNamesTheKeyAndTheArrayLength) {
  EXPECT_THAT(problems_of(fdtd_deck_schema(), kTwoSources,
                          {"fdtd.source.2.position=[0, 0, 0]", "fdtd.probe.0.cell=[1, 1, 1]"}),
              ElementsAre("--set fdtd.source.2.position=[0, 0, 0]: fdtd.source.2: there is no element 2: "
                          "[[fdtd.source]] has 2 elements (indices 0 to 1) in the deck",
                          "--set fdtd.probe.0.cell=[1, 1, 1]: fdtd.probe.0: the deck has no [[fdtd.probe]] to take "
                          "element 0 of"));
  const std::string one = "[fdtd]\ncells = [4, 4, 4]\n[[fdtd.source]]\nposition = [0, 0, 0]\n";
  EXPECT_THAT(problems_of(fdtd_deck_schema(), one, {"fdtd.source.1.amplitude=2"}),
              ElementsAre("--set fdtd.source.1.amplitude=2: fdtd.source.1: there is no element 1: [[fdtd.source]] "
                          "has 1 element (index 0) in the deck"));
}

TEST(DeckOverrides, AnArrayOfTablesNeedsAnIndexAndAKey) {
  const std::string fdtd = "[fdtd]\ncells = [4, 4, 4]\n[[fdtd.source]]\nposition = [0, 0, 0]\n";
  EXPECT_THAT(problems_of(fdtd_deck_schema(), fdtd,
                          {"fdtd.source.amplitude=2", "fdtd.source.0=3", "fdtd.cells.x=1", "fdtd.cells.0=1"}),
              ElementsAre("--set fdtd.source.amplitude=2: [[fdtd.source]] is an array of tables with 1 element (index "
                          "0): name an element by its index, as in --set fdtd.source.0.amplitude=2",
                          "--set fdtd.source.0=3: fdtd.source.0 is a whole [[fdtd.source]] element: set one of its "
                          "keys, as in --set fdtd.source.0.position=...",
                          "--set fdtd.cells.x=1: fdtd.cells is a value, not a table",
                          "--set fdtd.cells.0=1: fdtd.cells is an array of values, not of tables: set it whole, as "
                          "in --set fdtd.cells=[...]"));
}

TEST(DeckOverrides, ErrorsOfOverridesAndOfTheFileAreReportedTogether) {
  const std::string text = "[nbody]\ndt = 0.1\nseed = -1\n";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text, {"nbody.n=0", "bad"}),
              ElementsAre("demo.toml:3:8: nbody.seed = -1 is out of range: must be >= 0",
                          "--set nbody.n=0: nbody.n = 0 is out of range: must be >= 1",
                          "--set bad: expected table.key=value, as in --set nbody.n=1000"));
}

TEST(DeckOverrides, TwoStepApiSeesTheSolverAfterOverrides) {
  const ParsedDeck parsed = parse_deck("[run]\nsolver = \"fdtd\"\n", "demo.toml", std::vector<std::string>{"run.solver=nbody"});
  ASSERT_TRUE(parsed.solver().has_value());
  EXPECT_EQ(*parsed.solver(), "nbody");
  EXPECT_FALSE(parse_deck("[run]\nsteps = 1\n", "demo.toml").solver().has_value());
  EXPECT_FALSE(parse_deck("[run]\nsolver = 3\n", "demo.toml").solver().has_value());
  const Deck deck = validate_deck(nbody_deck_schema(), parse_deck(kDeck, "demo.toml", std::vector<std::string>{"nbody.n=5"}));
  EXPECT_EQ(deck.get_int("nbody.n"), 5);
}

}  // namespace
}  // namespace tessera::deck::test
