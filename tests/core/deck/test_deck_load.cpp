// Loading valid decks: defaults filled in, integers promoted to floats, arrays, arrays of
// tables, typed getters (and their misuse as a programming error), and where() for messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deck_test_schemas.hpp"

namespace tessera::deck::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* const kNbodyDeck = R"(# Two-body test
[run]
solver = "nbody"
steps = 2000

[nbody]
n = 2
dt = 1
box = [2, 3.5, 4]
integrator = "rk4"
)";

TEST(DeckLoad, ValuesFromTheDeck) {
  const Deck deck = load_deck(nbody_deck_schema(), kNbodyDeck, "demo.toml");
  EXPECT_EQ(deck.get_string("run.solver"), "nbody");
  EXPECT_EQ(deck.get_int("run.steps"), 2000);
  EXPECT_EQ(deck.get_int("nbody.n"), 2);
  EXPECT_EQ(deck.get_string("nbody.integrator"), "rk4");
}

TEST(DeckLoad, IntegersArePromotedToFloatsInScalarsAndArrays) {
  const Deck deck = load_deck(nbody_deck_schema(), kNbodyDeck, "demo.toml");
  EXPECT_EQ(deck.get_double("nbody.dt"), 1.0);
  EXPECT_THAT(deck.get_double_array("nbody.box"), ElementsAre(2.0, 3.5, 4.0));
}

TEST(DeckLoad, DefaultsFillEveryKeyTheDeckLeavesOut) {
  const Deck deck = load_deck(nbody_deck_schema(), kNbodyDeck, "demo.toml");
  EXPECT_EQ(deck.get_double("nbody.softening"), 0.01);
  EXPECT_EQ(deck.get_int("nbody.seed"), 42);
  EXPECT_FALSE(deck.get_bool("nbody.periodic"));
  EXPECT_EQ(deck.get_string("run.backend"), "auto");
  EXPECT_EQ(deck.get_string("run.output_dir"), "output");
  // Whole tables the deck never mentions.
  EXPECT_EQ(deck.get_int("checkpoint.keep"), 2);
  EXPECT_TRUE(deck.get_bool("output.at_end"));
  EXPECT_EQ(deck.get_int("diagnostics.every"), 0);
}

TEST(DeckLoad, DefaultOfAFloatArray) {
  const Deck deck = load_deck(nbody_deck_schema(), "[nbody]\ndt = 0.5\n", "demo.toml");
  EXPECT_THAT(deck.get_double_array("nbody.box"), ElementsAre(1.0, 1.0, 1.0));
}

TEST(DeckLoad, OptionalKeyIsAbsentUnlessSet) {
  const Deck without = load_deck(nbody_deck_schema(), kNbodyDeck, "demo.toml");
  EXPECT_FALSE(without.has("run.end_time"));
  EXPECT_TRUE(without.has("run.steps"));  // defaulted keys always have a value
  EXPECT_THROW(without.get_double("run.end_time"), std::logic_error);

  const Deck with = load_deck(nbody_deck_schema(), "[run]\nend_time = 3\n[nbody]\ndt = 0.1\n", "demo.toml");
  EXPECT_TRUE(with.has("run.end_time"));
  EXPECT_EQ(with.get_double("run.end_time"), 3.0);
}

const char* const kFdtdDeck = R"([run]
solver = "fdtd"

[fdtd]
cells = [64, 32, 16]
weights = []

[fdtd.boundary]
kind = "periodic"

[[fdtd.source]]
position = [0.01, 0.02, 0.03]
label = "dipole \"A\""

[[fdtd.source]]
position = [0, 0, 0]
amplitude = 2.5
waveform = "sine"
[fdtd.source.shape]
radius = 0.004
)";

TEST(DeckLoad, IntegerArrayAndSubTable) {
  const Deck deck = load_deck(fdtd_deck_schema(), kFdtdDeck, "demo.toml");
  EXPECT_THAT(deck.get_int_array("fdtd.cells"), ElementsAre(64, 32, 16));
  EXPECT_TRUE(deck.get_double_array("fdtd.weights").empty());  // any length, here none
  EXPECT_EQ(deck.get_string("fdtd.boundary.kind"), "periodic");
  EXPECT_EQ(deck.get_int("fdtd.boundary.pml_cells"), 10);
  EXPECT_EQ(deck.get_double("fdtd.courant"), 0.99);
}

TEST(DeckLoad, ArrayOfTablesGivesOneConfigPerElementWithDefaults) {
  const Deck deck = load_deck(fdtd_deck_schema(), kFdtdDeck, "demo.toml");
  const auto sources = deck.get_table_array("fdtd.source");
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_THAT(sources[0].get_double_array("position"), ElementsAre(0.01, 0.02, 0.03));
  EXPECT_EQ(sources[0].get_double("amplitude"), 1.0);
  EXPECT_EQ(sources[0].get_string("waveform"), "gaussian");
  EXPECT_EQ(sources[0].get_string("label"), "dipole \"A\"");
  EXPECT_EQ(sources[0].get_double("shape.radius"), 0.0);  // sub-table of an element, defaulted
  EXPECT_THAT(sources[1].get_double_array("position"), ElementsAre(0.0, 0.0, 0.0));
  EXPECT_EQ(sources[1].get_double("amplitude"), 2.5);
  EXPECT_EQ(sources[1].get_string("waveform"), "sine");
  EXPECT_FALSE(sources[1].has("label"));
  EXPECT_EQ(sources[1].get_double("shape.radius"), 0.004);
  EXPECT_EQ(sources[0].name(), "fdtd.source[0]");
  EXPECT_EQ(sources[1].name(), "fdtd.source[1]");
  EXPECT_EQ(sources[0].location(), "demo.toml:11");
  EXPECT_EQ(sources[1].location(), "demo.toml:15");
  EXPECT_EQ(sources[1].where("amplitude"), "demo.toml:17");
  EXPECT_EQ(sources[1].where("shape.radius"), "demo.toml:20");
  EXPECT_TRUE(deck.get_table_array("fdtd.probe").empty());  // none in the deck
}

TEST(DeckLoad, InlineArrayOfTablesIsAcceptedToo) {
  const Deck deck = load_deck(
      fdtd_deck_schema(), "[fdtd]\ncells = [2, 2, 2]\nprobe = [{cell = [0, 0, 0]}, {cell = [1, 1, 1]}]\n", "demo.toml");
  const auto probes = deck.get_table_array("fdtd.probe");
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_THAT(probes[1].get_int_array("cell"), ElementsAre(1, 1, 1));
}

TEST(DeckLoad, WhereGivesFileAndLineOrDefault) {
  const Deck deck = load_deck(nbody_deck_schema(), kNbodyDeck, "inputs/nbody/two_body.toml");
  EXPECT_EQ(deck.where("nbody.dt"), "inputs/nbody/two_body.toml:8");
  EXPECT_EQ(deck.where("run.steps"), "inputs/nbody/two_body.toml:4");
  EXPECT_EQ(deck.where("nbody.seed"), "inputs/nbody/two_body.toml (default)");
  EXPECT_EQ(deck.where("run.end_time"), "inputs/nbody/two_body.toml (not set)");
}

TEST(DeckLoad, KeepsSourceTextAndName) {
  const Deck deck = load_deck(nbody_deck_schema(), kNbodyDeck, "demo.toml");
  EXPECT_EQ(deck.source_text(), kNbodyDeck);
  EXPECT_EQ(deck.source_name(), "demo.toml");
  EXPECT_TRUE(deck.overrides().empty());
  EXPECT_NE(deck.schema().find_table("nbody"), nullptr);
}

TEST(DeckGetters, UnknownKeyIsAProgrammingError) {
  const Deck deck = load_deck(nbody_deck_schema(), kNbodyDeck, "demo.toml");
  EXPECT_THROW(deck.get_int("nbody.nn"), std::logic_error);
  EXPECT_THROW(deck.get_int("nbdy.n"), std::logic_error);
  EXPECT_THROW(deck.get_int("n"), std::logic_error);
  EXPECT_THROW(deck.has("nbody.nn"), std::logic_error);
  EXPECT_THROW(deck.where("nbody.nn"), std::logic_error);
  EXPECT_THROW(Deck().get_int("nbody.n"), std::logic_error);
}

TEST(DeckGetters, WrongTypeIsAProgrammingErrorNamingTheRightGetter) {
  const Deck deck = load_deck(nbody_deck_schema(), kNbodyDeck, "demo.toml");
  try {
    deck.get_double("nbody.n");
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'nbody.n' is an integer key; get_double cannot read it, use get_int"));
    EXPECT_EQ(exit_code_for(e), ExitCode::internal_error);
  }
  EXPECT_THROW(deck.get_int("nbody.dt"), std::logic_error);
  EXPECT_THROW(deck.get_bool("nbody.integrator"), std::logic_error);
  EXPECT_THROW(deck.get_string("nbody.n"), std::logic_error);
  EXPECT_THROW(deck.get_int_array("nbody.box"), std::logic_error);
  EXPECT_THROW(deck.get_double_array("nbody.n"), std::logic_error);
  EXPECT_NO_THROW(deck.get_string("nbody.integrator"));  // choice keys read as strings
}

TEST(DeckGetters, KeysInsideArraysOfTablesAreReadThroughTheElements) {
  const Deck deck = load_deck(fdtd_deck_schema(), kFdtdDeck, "demo.toml");
  EXPECT_THROW(deck.get_double("fdtd.source.amplitude"), std::logic_error);
  EXPECT_THROW(deck.get_table_array("fdtd.boundary"), std::logic_error);  // not an array of tables
  EXPECT_THROW(deck.get_table_array("fdtd.sources"), std::logic_error);
  EXPECT_THROW(deck.get_table_array("fdtd.source")[0].get_double("fdtd.source.amplitude"), std::logic_error);
}

}  // namespace
}  // namespace tessera::deck::test
