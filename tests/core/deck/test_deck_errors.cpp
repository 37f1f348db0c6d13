// Every way a deck can be wrong, and the message the user gets: file, line and column, the
// key, the reason and, where one is close, the valid name to use instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deck_test_schemas.hpp"

namespace tessera::deck::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(DeckErrors, SyntaxErrorHasFileLineColumnAndDescription) {
  const std::string text = "[run]\nsolver = \"nbody\"\n[nbody]\ndt = 0.1.2\n";
  const auto problems = problems_of(nbody_deck_schema(), text);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("demo.toml:4:"));
  EXPECT_THAT(problems[0], HasSubstr("TOML syntax error: "));
  EXPECT_THAT(problems[0], HasSubstr("floating-point"));  // toml++'s own description
}

TEST(DeckErrors, SyntaxErrorIsAnInputError) {
  try {
    load_deck(nbody_deck_schema(), "[run\n", "bad.toml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.toml:1:"));
    EXPECT_EQ(exit_code_for(e), ExitCode::input_error);
  }
}

TEST(DeckErrors, UnknownKeySuggestsTheNearestKey) {
  const std::string text = R"([run]
solver = "nbody"

[nbody]
dt = 0.1
n = 100
softening = 0.5
# a typo of dt
dtt = 0.2
)";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:9:1: unknown key 'dtt' in [nbody]; did you mean 'dt'?"));
}

TEST(DeckErrors, UnknownKeyFarFromEveryKeyHasNoSuggestion) {
  const std::string text = "[nbody]\ndt = 0.1\nwibble = 3\n";
  const auto problems = problems_of(nbody_deck_schema(), text);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "demo.toml:3:1: unknown key 'wibble' in [nbody]");
}

TEST(DeckErrors, SuggestionIgnoresCaseAndCatchesSwappedLetters) {
  const std::string text = "[nbody]\ndt = 0.1\nDT = 0.1\nitnegrator = \"euler\"\n";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:3:1: unknown key 'DT' in [nbody]; did you mean 'dt'?",
                          "demo.toml:4:1: unknown key 'itnegrator' in [nbody]; did you mean 'integrator'?"));
}

TEST(DeckErrors, UnknownTableSuggestsTheNearestTable) {
  const std::string text = R"([run]
solver = "nbody"

[nbdy]
dt = 0.1
)";
  const auto problems = problems_of(nbody_deck_schema(), text);
  // [nbody] is absent, so its required dt is missing too.
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "demo.toml:4:1: unknown table [nbdy]; did you mean [nbody]?");
  EXPECT_THAT(problems[1], HasSubstr("missing required key 'dt' in [nbody]"));
}

TEST(DeckErrors, UnknownSubTableSuggestsTheNearestSubTable) {
  const std::string text = R"([fdtd]
cells = [8, 8, 8]

[fdtd.boundry]
kind = "pec"
)";
  EXPECT_THAT(problems_of(fdtd_deck_schema(), text),
              ElementsAre("demo.toml:4:1: unknown table [fdtd.boundry]; did you mean [fdtd.boundary]?"));
}

TEST(DeckErrors, KeyAboveEveryTableNamesTheTableItBelongsIn) {
  const std::string text = "solver = \"nbody\"\nstepz = 3\n[nbody]\ndt = 0.1\n";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:1:1: key 'solver' is outside any table; did you mean to put it in [run]?",
                          "demo.toml:2:1: key 'stepz' is outside any table; keys belong in a table such as [run]"));
}

TEST(DeckErrors, WrongTypeNamesKeyExpectedTypeAndWhatWasWritten) {
  const std::string text = R"([run]
solver = "nbody"

[nbody]
dt = "0.1"
periodic = "yes"
box = 3.0
)";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:5:6: nbody.dt must be a float, got a string (\"0.1\")",
                          "demo.toml:6:12: nbody.periodic must be a boolean (true or false), got a string (\"yes\")",
                          "demo.toml:7:7: nbody.box must be an array of 3 floats, got a float (3.0)"));
}

TEST(DeckErrors, FloatIsNotAcceptedForAnInteger) {
  const std::string text = "[nbody]\ndt = 0.1\nn = 1000.0\nseed = 1.5\nsoftening = 1\n";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:3:5: nbody.n must be an integer, got a float (1000.0); write 1000 for an integer",
                          "demo.toml:4:8: nbody.seed must be an integer, got a float (1.5)"));
}

TEST(DeckErrors, ExponentFloatForAnIntegerShowsTheIntegerToWrite) {
  const auto problems = problems_of(nbody_deck_schema(), "[nbody]\ndt = 0.1\nn = 1e6\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("nbody.n must be an integer, got a float (1000000.0); write 1000000"));
}

TEST(DeckErrors, OutOfRangeShowsTheBoundAndUnit) {
  const std::string text = R"([run]
solver = "nbody"

[nbody]
dt = -1
n = 0
softening = -0.5
)";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:5:6: nbody.dt = -1 is out of range: must be > 0 (s)",
                          "demo.toml:6:5: nbody.n = 0 is out of range: must be >= 1",
                          "demo.toml:7:13: nbody.softening = -0.5 is out of range: must be >= 0 (m)"));
}

TEST(DeckErrors, TwoSidedRangeDescribesBothBounds) {
  const auto problems = problems_of(fdtd_deck_schema(), "[fdtd]\ncells = [4, 4, 4]\ncourant = 1.5\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "demo.toml:3:11: fdtd.courant = 1.5 is out of range: must be > 0 and <= 1");
}

TEST(DeckErrors, BadChoiceListsTheChoicesAndSuggestsTheNearest) {
  const std::string text = "[nbody]\ndt = 0.1\nintegrator = \"leapfrg\"\n";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:3:14: nbody.integrator = \"leapfrg\" is not one of \"leapfrog\", "
                          "\"euler\", \"rk4\"; did you mean \"leapfrog\"?"));
}

TEST(DeckErrors, BadChoiceFarFromEveryChoiceHasNoSuggestion) {
  const auto problems = problems_of(nbody_deck_schema(), "[nbody]\ndt = 0.1\nintegrator = \"hermite\"\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("is not one of \"leapfrog\", \"euler\", \"rk4\""));
  EXPECT_THAT(problems[0], Not(HasSubstr("did you mean")));
}

TEST(DeckErrors, ChoiceOfTheWrongTypeSaysItMustBeAString) {
  const auto problems = problems_of(nbody_deck_schema(), "[nbody]\ndt = 0.1\nintegrator = 2\n");
  EXPECT_THAT(problems, ElementsAre("demo.toml:3:14: nbody.integrator must be a string, one of \"leapfrog\", "
                                    "\"euler\", \"rk4\", got an integer (2)"));
}

TEST(DeckErrors, MissingRequiredKeyNamesTableKeyAndFile) {
  const std::string text = R"([run]
solver = "nbody"

[nbody]
n = 10
)";
  EXPECT_THAT(problems_of(nbody_deck_schema(), text),
              ElementsAre("demo.toml:4:1: missing required key 'dt' in [nbody]: time step (float, s)"));
}

TEST(DeckErrors, MissingRequiredKeyOfAnAbsentTableNamesTheFile) {
  EXPECT_THAT(problems_of(nbody_deck_schema(), "[run]\nsolver = \"nbody\"\n"),
              ElementsAre("demo.toml: missing required key 'dt' in [nbody]: time step (float, s)"));
}

TEST(DeckErrors, ArrayOfWrongLengthSaysHowManyElements) {
  const auto problems = problems_of(fdtd_deck_schema(), "[fdtd]\ncells = [8, 8]\n");
  EXPECT_THAT(problems, ElementsAre("demo.toml:2:9: fdtd.cells must have exactly 3 elements, got 2"));
}

TEST(DeckErrors, ArrayElementsAreTypeAndRangeCheckedWithTheirOwnPosition) {
  const std::string text = R"([fdtd]
cells = [8, 0, 2.5]
weights = [1, -2.0, "x"]
)";
  EXPECT_THAT(problems_of(fdtd_deck_schema(), text),
              ElementsAre("demo.toml:2:13: fdtd.cells[1] = 0 is out of range: must be >= 1",
                          "demo.toml:2:16: fdtd.cells[2] must be an integer, got a float (2.5)",
                          "demo.toml:3:15: fdtd.weights[1] = -2.0 is out of range: must be >= 0",
                          "demo.toml:3:21: fdtd.weights[2] must be a float, got a string (\"x\")"));
}

TEST(DeckErrors, LongBadArraysReportAFewElementsAndACount) {
  const auto problems = problems_of(fdtd_deck_schema(), "[fdtd]\ncells = [1, 1, 1]\nweights = [-1, -1, -1, -1, -1, -1]\n");
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_THAT(problems[3], HasSubstr("fdtd.weights: 3 more invalid elements"));
}

TEST(DeckErrors, ValueWhereATableBelongs) {
  const auto problems = problems_of(fdtd_deck_schema(), "[fdtd]\ncells = [1, 1, 1]\nboundary = \"pml\"\n");
  EXPECT_THAT(problems, ElementsAre("demo.toml:3:12: fdtd.boundary must be a table ([fdtd.boundary]), "
                                    "got a string (\"pml\")"));
}

TEST(DeckErrors, SingleTableWhereAnArrayOfTablesBelongs) {
  const std::string text = "[fdtd]\ncells = [1, 1, 1]\n\n[fdtd.source]\nposition = [0, 0, 0]\n";
  const auto problems = problems_of(fdtd_deck_schema(), text);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "demo.toml:4:1: fdtd.source must be an array of tables (one [[fdtd.source]] block "
                         "each), got a table");
}

TEST(DeckErrors, ArrayOfTablesElementsAreValidatedOneByOne) {
  const std::string text = R"([fdtd]
cells = [16, 16, 16]

[[fdtd.source]]
position = [0.1, 0.1, 0.1]
amplitud = 2.0

[[fdtd.source]]
waveform = "square"

[fdtd.source.shape]
radius = -1.0
)";
  EXPECT_THAT(problems_of(fdtd_deck_schema(), text),
              ElementsAre("demo.toml:6:1: unknown key 'amplitud' in [[fdtd.source]]; did you mean 'amplitude'?",
                          "demo.toml:8:1: missing required key 'position' in [[fdtd.source]] (fdtd.source[1]): "
                          "source position (array of 3 floats, m)",
                          "demo.toml:9:12: fdtd.source[1].waveform = \"square\" is not one of \"gaussian\", "
                          "\"sine\"",
                          "demo.toml:12:10: fdtd.source[1].shape.radius = -1.0 is out of range: must be >= 0 (m)"));
}

TEST(DeckErrors, AllErrorsOfADeckAreReportedTogetherInFileOrder) {
  const std::string text = R"([run]
solver = "nbody"
stpes = 10

[nbody]
n = -5
integrator = "eulr"
box = [1.0, 1.0]

[checkpoint]
keep = 0
)";
  try {
    load_deck(nbody_deck_schema(), text, "demo.toml");
    FAIL() << "no error";
  } catch (const DeckError& e) {
    EXPECT_THAT(e.problems(),
                ElementsAre("demo.toml:3:1: unknown key 'stpes' in [run]; did you mean 'steps'?",
                            "demo.toml:5:1: missing required key 'dt' in [nbody]: time step (float, s)",
                            "demo.toml:6:5: nbody.n = -5 is out of range: must be >= 1",
                            "demo.toml:7:14: nbody.integrator = \"eulr\" is not one of \"leapfrog\", \"euler\", "
                            "\"rk4\"; did you mean \"euler\"?",
                            "demo.toml:8:7: nbody.box must have exactly 3 elements, got 2",
                            "demo.toml:11:8: checkpoint.keep = 0 is out of range: must be >= 1"));
    // One InputError whose message lists every problem, one per line.
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("demo.toml: 6 errors in the deck:\n"));
    for (const std::string& p : e.problems()) EXPECT_THAT(what, HasSubstr("\n  " + p));
    EXPECT_EQ(std::count(what.begin(), what.end(), '\n'), 6);
  }
}

TEST(DeckErrors, SingleErrorMessageIsJustThatLine) {
  const std::string what = error_of(nbody_deck_schema(), "[nbody]\ndt = 0\n");
  EXPECT_EQ(what, "demo.toml:2:6: nbody.dt = 0 is out of range: must be > 0 (s)");
}

}  // namespace
}  // namespace tessera::deck::test
