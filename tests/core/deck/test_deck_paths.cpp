// Keys that name files (KeyBuilder::file()): relative values in a deck resolve against the
// deck's folder, --set values against the working directory, "$PWD/..." against the working
// directory wherever written; absolute and empty values are kept; the rule also holds inside
// arrays of tables, and the resolved deck round-trips.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/deck/load.hpp"
#include "core/deck/paths.hpp"

namespace tessera::deck::test {
namespace {

namespace fs = std::filesystem;

Schema file_schema() {
  Schema s;
  s.table("data", "inputs")
      .string("graph", "a graph file").file().default_value("")
      .string("label", "not a file").default_value("");
  s.array_table("data.plane", "planes").string("subtract", "an earlier run's file").file().optional();
  return s;
}

std::string cwd(const std::string& rest) { return (fs::current_path() / rest).lexically_normal().string(); }

TEST(DeckPaths, RelativeValueInADeckResolvesAgainstTheDecksFolder) {
  const Deck deck = load_deck(file_schema(), "[data]\ngraph = \"data/g.txt\"\nlabel = \"data/g.txt\"\n",
                              "/opt/decks/bfs/edges.toml");
  EXPECT_EQ(deck.get_string("data.graph"), "/opt/decks/bfs/data/g.txt");
  EXPECT_EQ(deck.get_string("data.label"), "data/g.txt");  // not a file key: untouched
  EXPECT_EQ(deck.where("data.graph"), "/opt/decks/bfs/edges.toml:2");
}

TEST(DeckPaths, ParentFoldersAndADeckNamedRelativeToTheWorkingDirectory) {
  EXPECT_EQ(load_deck(file_schema(), "[data]\ngraph = \"../shared/g.txt\"\n", "/opt/decks/bfs/e.toml")
                .get_string("data.graph"),
            "/opt/decks/shared/g.txt");
  EXPECT_EQ(load_deck(file_schema(), "[data]\ngraph = \"g.txt\"\n", "inputs/bfs/e.toml").get_string("data.graph"),
            cwd("inputs/bfs/g.txt"));
  EXPECT_EQ(load_deck(file_schema(), "[data]\ngraph = \"g.txt\"\n", "e.toml").get_string("data.graph"), cwd("g.txt"));
}

TEST(DeckPaths, SetValuesStayRelativeToTheWorkingDirectory) {
  const std::vector<std::string> set{"data.graph=data/g.txt"};
  const Deck deck = load_deck(file_schema(), "[data]\ngraph = \"x.txt\"\n", "/opt/decks/e.toml", set);
  EXPECT_EQ(deck.get_string("data.graph"), "data/g.txt");
  EXPECT_EQ(deck.where("data.graph"), "--set data.graph=data/g.txt");
}

TEST(DeckPaths, PwdPrefixAbsoluteAndEmptyValues) {
  EXPECT_EQ(load_deck(file_schema(), "[data]\ngraph = \"$PWD/output/a/flux.h5\"\n", "/opt/d/e.toml")
                .get_string("data.graph"),
            cwd("output/a/flux.h5"));
  const std::vector<std::string> set{"data.graph=$PWD/x.h5"};
  EXPECT_EQ(load_deck(file_schema(), "", "/opt/d/e.toml", set).get_string("data.graph"), cwd("x.h5"));
  EXPECT_EQ(load_deck(file_schema(), "[data]\ngraph = \"/abs/g.txt\"\n", "/opt/d/e.toml").get_string("data.graph"),
            "/abs/g.txt");
  EXPECT_EQ(load_deck(file_schema(), "", "/opt/d/e.toml").get_string("data.graph"), "");  // the default
  // "$PWDX" is an ordinary name, relative to the deck.
  EXPECT_EQ(resolve_file_value("$PWDX/a", "/opt/d/e.toml", false), "/opt/d/$PWDX/a");
}

TEST(DeckPaths, ArraysOfTablesAndTheResolvedDeckRoundTrip) {
  const std::string text = "[[data.plane]]\nsubtract = \"empty/flux.h5\"\n[[data.plane]]\n";
  const Deck deck = load_deck(file_schema(), text, "/opt/decks/fdtd/slab.toml");
  ASSERT_EQ(deck.get_table_array("data.plane").size(), 2u);
  EXPECT_EQ(deck.get_table_array("data.plane")[0].get_string("subtract"), "/opt/decks/fdtd/empty/flux.h5");
  EXPECT_FALSE(deck.get_table_array("data.plane")[1].has("subtract"));
  // What rank 0 broadcasts and checkpoints store: the resolved value, read back unchanged from
  // anywhere (an absolute path stays as it is).
  const Deck again = load_deck(file_schema(), deck.to_toml(), "/elsewhere/copy.toml");
  EXPECT_EQ(again.get_table_array("data.plane")[0].get_string("subtract"), "/opt/decks/fdtd/empty/flux.h5");
}

TEST(DeckPaths, FileOnANonStringKeyIsASchemaBug) {
  Schema s;
  EXPECT_THROW(s.table("t").integer("n", "a number").file(), std::logic_error);
}

}  // namespace
}  // namespace tessera::deck::test
