// Deck::to_toml: the resolved deck read back gives the same values (rank 0 broadcasts this
// text; checkpoints store it), including floats that need all their digits and awkward strings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "deck_test_schemas.hpp"

namespace tessera::deck::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Schema awkward_schema() {
  Schema s = nbody_deck_schema();
  s.table("extra", "values that are hard to print")
      .floating("third", "1/3, all 17 digits").optional()
      .floating("tiny", "a subnormal").optional()
      .floating("huge", "close to the largest double").optional()
      .floating("whole", "a float with an integral value").optional()
      .floating("negative_zero", "-0.0").optional()
      .integer("big", "a large integer").optional()
      .string("text", "quotes, backslashes, newlines, tabs, unicode").optional()
      .float_array("mixed", "ints and floats").optional()
      .integer_array("empty", "an empty integer array").optional();
  return s;
}

// inf and nan pass every range check ("> 0" included), so a deck may not hold them anywhere.
TEST(DeckValues, NonFiniteNumbersAreRefusedWithTheKey) {
  for (const std::string v : {"inf", "-inf", "nan"}) {
    const std::string text = "[run]\nsolver = \"nbody\"\n\n[nbody]\ndt = " + v + "\n";
    try {
      load_deck(awkward_schema(), text, "demo.toml");
      ADD_FAILURE() << "dt = " << v << " was accepted";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr("demo.toml:5")) << v;
      EXPECT_THAT(e.what(), HasSubstr("nbody.dt = " + v + " must be a finite number")) << v;
    }
  }
  const std::string array = "[run]\nsolver = \"nbody\"\n\n[extra]\nmixed = [1.0, inf]\n";
  EXPECT_THROW(load_deck(awkward_schema(), array, "demo.toml"), InputError);
}

TEST(DeckRoundTrip, ResolvedTextReadsBackToTheSameValues) {
  const std::string text = R"([run]
solver = "nbody"

[nbody]
dt = 0.1

[extra]
third = 0.3333333333333333
tiny = 4.9e-324
huge = 1.7976931348623157e308
whole = 3.0
negative_zero = -0.0
big = -9223372036854775807
text = "say \"hi\" \\ C:\\path\nline two\ttab \u00e9\u4e2d"
mixed = [1, 2.5, -3]
empty = []
)";
  const Deck first = load_deck(awkward_schema(), text, "demo.toml", std::vector<std::string>{"nbody.n=12345"});
  const std::string resolved = first.to_toml();
  const Deck second = load_deck(awkward_schema(), resolved, "demo.toml");

  EXPECT_EQ(second.get_double("extra.third"), 1.0 / 3.0);
  EXPECT_EQ(second.get_double("extra.tiny"), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(second.get_double("extra.huge"), std::numeric_limits<double>::max());
  EXPECT_EQ(second.get_double("extra.whole"), 3.0);
  EXPECT_TRUE(std::signbit(second.get_double("extra.negative_zero")));
  EXPECT_EQ(second.get_int("extra.big"), -9223372036854775807LL);
  EXPECT_EQ(second.get_string("extra.text"), "say \"hi\" \\ C:\\path\nline two\ttab \u00e9\u4e2d");
  EXPECT_THAT(second.get_double_array("extra.mixed"), ElementsAre(1.0, 2.5, -3.0));
  EXPECT_TRUE(second.get_int_array("extra.empty").empty());
  EXPECT_EQ(second.get_int("nbody.n"), 12345);  // the override is part of the resolved deck
  EXPECT_EQ(second.get_double("nbody.dt"), 0.1);
  // Printing again gives the same text, less the header comment naming the overrides.
  EXPECT_EQ(second.to_toml(), load_deck(awkward_schema(), resolved, "demo.toml").to_toml());
  EXPECT_EQ(resolved.substr(resolved.find("\n[")), second.to_toml().substr(second.to_toml().find("\n[")));
}

TEST(DeckRoundTrip, EveryKeyIsWrittenWithDefaultsFilledIn) {
  const Deck deck = load_deck(nbody_deck_schema(), "[nbody]\ndt = 0.5\n", "demo.toml");
  const std::string resolved = deck.to_toml();
  for (const TableSpec& table : deck.schema().tables()) {
    EXPECT_THAT(resolved, HasSubstr("\n[" + table.name + "]\n"));
    for (const KeySpec& key : table.keys) {
      if (key.name == "solver" || key.name == "end_time") continue;  // unset: no default
      EXPECT_THAT(resolved, HasSubstr("\n" + key.name + " = ")) << table.name << "." << key.name;
    }
  }
  EXPECT_THAT(resolved, HasSubstr("\n[nbody]\nn = 4096\ndt = 0.5\nsoftening = 0.01\nintegrator = \"leapfrog\"\n"
                                  "box = [1.0, 1.0, 1.0]\nseed = 42\nperiodic = false\n"));
  EXPECT_THAT(resolved, Not(HasSubstr("end_time")));  // an unset optional key stays unset
  EXPECT_THAT(resolved, HasSubstr("# tessera deck resolved from demo.toml"));
}

TEST(DeckRoundTrip, ArraysOfTablesAndNestedTables) {
  const std::string text = R"([fdtd]
cells = [8, 8, 8]

[[fdtd.probe]]
cell = [1, 2, 3]

[[fdtd.source]]
position = [0.5, 0.5, 0.5]
label = "first"
[fdtd.source.shape]
radius = 0.25

[[fdtd.source]]
position = [1, 1, 1]
waveform = "sine"

[fdtd.boundary]
kind = "pec"
)";
  const Deck first = load_deck(fdtd_deck_schema(), text, "demo.toml");
  const Deck second = load_deck(fdtd_deck_schema(), first.to_toml(), "demo.toml");
  EXPECT_EQ(second.to_toml(), first.to_toml());
  EXPECT_EQ(second.get_string("fdtd.boundary.kind"), "pec");
  const auto sources = second.get_table_array("fdtd.source");
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0].get_string("label"), "first");
  EXPECT_EQ(sources[0].get_double("shape.radius"), 0.25);
  EXPECT_FALSE(sources[1].has("label"));
  EXPECT_EQ(sources[1].get_string("waveform"), "sine");
  EXPECT_EQ(sources[1].get_double("shape.radius"), 0.0);
  ASSERT_EQ(second.get_table_array("fdtd.probe").size(), 1u);
  EXPECT_THAT(second.get_table_array("fdtd.probe")[0].get_int_array("cell"), ElementsAre(1, 2, 3));
  // Each element's sub-table follows its own [[...]] header.
  const std::string resolved = first.to_toml();
  EXPECT_THAT(resolved, HasSubstr("[[fdtd.source]]\nposition = [0.5, 0.5, 0.5]\namplitude = 1.0\n"
                                  "waveform = \"gaussian\"\nlabel = \"first\"\n\n[fdtd.source.shape]\nradius = 0.25\n"));
}

TEST(DeckRoundTrip, OverridesAreRecordedAsComments) {
  const Deck deck = load_deck(nbody_deck_schema(), "[nbody]\ndt = 0.5\n", "demo.toml",
                              std::vector<std::string>{"nbody.n=7", "run.solver=nbody"});
  EXPECT_THAT(deck.to_toml(), HasSubstr("# --set nbody.n=7\n# --set run.solver=nbody\n"));
}

}  // namespace
}  // namespace tessera::deck::test
