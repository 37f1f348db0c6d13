// Building schemas: the fluent API, mistakes in a schema caught as bugs, merging, the Markdown
// reference, and the "did you mean" distance.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/deck/suggest.hpp"
#include "deck_test_schemas.hpp"

namespace tessera::deck::test {
namespace {

using ::testing::HasSubstr;

TEST(DeckSchema, BuilderRecordsEveryAttribute) {
  const Schema s = nbody_deck_schema();
  const TableSpec* nbody = s.find_table("nbody");
  ASSERT_NE(nbody, nullptr);
  EXPECT_EQ(nbody->description, "All-pairs N-body gravity");
  const KeySpec* dt = nbody->find_key("dt");
  ASSERT_NE(dt, nullptr);
  EXPECT_EQ(dt->type, KeyType::floating);
  EXPECT_EQ(dt->unit, "s");
  EXPECT_TRUE(dt->required());
  ASSERT_TRUE(dt->range.lower.has_value());
  EXPECT_FALSE(dt->range.lower->inclusive);
  EXPECT_FALSE(dt->range.contains(0.0));
  EXPECT_TRUE(dt->range.contains(1e-300));
  const KeySpec* box = nbody->find_key("box");
  EXPECT_EQ(box->length, 3u);
  EXPECT_EQ(box->type_description(), "array of 3 floats");
  EXPECT_EQ(std::get<FloatArray>(*box->default_value), (FloatArray{1, 1, 1}));
  const KeySpec* n = nbody->find_key("n");
  EXPECT_EQ(std::get<std::int64_t>(*n->default_value), 4096);
  EXPECT_EQ(s.find_table("fdtd"), nullptr);
}

TEST(DeckSchema, IntegerDefaultOfAFloatKeyIsAFloat) {
  Schema s;
  s.table("t").floating("x", "x").default_value(2).integer_array("c", "c").default_value({1, 2});
  EXPECT_EQ(std::get<double>(*s.find_table("t")->find_key("x")->default_value), 2.0);
  EXPECT_EQ(std::get<IntArray>(*s.find_table("t")->find_key("c")->default_value), (IntArray{1, 2}));
}

TEST(DeckSchema, MistakesInASchemaAreBugs) {
  Schema s;
  auto t = s.table("t", "test");
  EXPECT_THROW(t.integer("a", "").min(1).default_value(0), std::logic_error);          // default out of range
  EXPECT_THROW(t.integer("b", "").default_value(0).greater_than(0), std::logic_error);  // either order
  EXPECT_THROW(t.integer("c", "").default_value(0.5), std::logic_error);               // wrong type
  EXPECT_THROW(t.string("d", "").default_value(true), std::logic_error);
  EXPECT_THROW(t.choice("e", "", {"x", "y"}).default_value("z"), std::logic_error);
  EXPECT_THROW(t.float_array("f", "").length(3).default_value({1, 2}), std::logic_error);
  EXPECT_THROW(t.integer_array("g", "").default_value({1.5}), std::logic_error);
  EXPECT_THROW(t.string("h", "").min(0), std::logic_error);  // range on a string
  EXPECT_THROW(t.integer("i", "").length(3), std::logic_error);
  EXPECT_THROW(t.choice("k", "", {}), std::logic_error);
  t.integer("dup", "");
  EXPECT_THROW(t.integer("dup", ""), std::logic_error);
  EXPECT_THROW(t.integer("has space", ""), std::logic_error);
  EXPECT_THROW(s.table("orphan.child"), std::logic_error);  // parent first
  EXPECT_THROW(s.table("t.dup"), std::logic_error);         // clashes with key 'dup'
  s.table("t.sub");
  EXPECT_THROW(t.integer("sub", ""), std::logic_error);  // clashes with table [t.sub]
  EXPECT_THROW(s.array_table("t.sub"), std::logic_error);
  EXPECT_THROW(t.key("nope"), std::logic_error);
}

TEST(DeckSchema, MergeAddsTablesAndKeysAndRejectsDuplicates) {
  Schema a = run_schema();
  Schema extra;
  extra.table("output", "").integer("snapshots", "particle snapshots").default_value(1);
  a.merge(nbody_schema()).merge(extra);
  EXPECT_NE(a.find_table("nbody"), nullptr);
  EXPECT_NE(a.find_table("output")->find_key("every"), nullptr);
  EXPECT_NE(a.find_table("output")->find_key("snapshots"), nullptr);
  EXPECT_EQ(a.find_table("output")->description, "solver outputs");
  EXPECT_THROW(a.merge(nbody_schema()), std::logic_error);
  Schema b = fdtd_deck_schema();
  EXPECT_EQ(b.children("fdtd").size(), 3u);
  EXPECT_EQ(b.children("").front()->name, "run");
}

TEST(DeckSchema, KeyCanBeReopenedToRefineIt) {
  Schema s = run_schema();
  s.table("run").key("solver").choices({"nbody", "fdtd"}).default_value("nbody");
  s.table("checkpoint").key("keep").default_value(5);
  const KeySpec* solver = s.find_table("run")->find_key("solver");
  EXPECT_EQ(solver->type, KeyType::choice);
  EXPECT_EQ(solver->description, "the solver");
  EXPECT_EQ(std::get<std::int64_t>(*s.find_table("checkpoint")->find_key("keep")->default_value), 5);
  EXPECT_THROW(s.table("checkpoint").key("keep").default_value(0), std::logic_error);  // still >= 1
  s.table("run").key("end_time").default_value(7.5);  // optional -> defaulted
  EXPECT_FALSE(s.find_table("run")->find_key("end_time")->optional);
  s.table("run").key("steps").optional();  // defaulted -> optional
  EXPECT_FALSE(s.find_table("run")->find_key("steps")->default_value.has_value());
}

TEST(DeckSchema, MarkdownDocumentsEveryTableAndKey) {
  const Schema s = run_schema().merge(nbody_schema()).merge(fdtd_schema());
  const std::string md = s.to_markdown();
  for (const TableSpec& table : s.tables()) {
    EXPECT_THAT(md, HasSubstr("## `" + table.header() + "`\n")) << table.name;
    for (const KeySpec& key : table.keys) {
      EXPECT_THAT(md, HasSubstr("| `" + key.name + "` | ")) << table.name << "." << key.name;
      EXPECT_THAT(md, HasSubstr(" | " + key.description + " |")) << table.name << "." << key.name;
    }
  }
  EXPECT_THAT(md, HasSubstr("| `dt` | float | **required** | > 0 | s | time step |"));
  EXPECT_THAT(md, HasSubstr("| `n` | integer | `4096` | >= 1 |  | number of bodies |"));
  EXPECT_THAT(md, HasSubstr("| `integrator` | one of `leapfrog`, `euler`, `rk4` | `\"leapfrog\"` |"));
  EXPECT_THAT(md, HasSubstr("| `box` | array of 3 floats | `[1.0, 1.0, 1.0]` | each > 0 | m |"));
  EXPECT_THAT(md, HasSubstr("| `courant` | float | `0.99` | > 0 and <= 1 |"));
  EXPECT_THAT(md, HasSubstr("| `end_time` | float | optional | >= 0 | s |"));
  EXPECT_THAT(md, HasSubstr("## `[[fdtd.source]]`\n\nfield sources\n\nRepeat the `[[fdtd.source]]` block"));
}

TEST(DeckSchema, MarkdownEscapesPipes) {
  Schema s;
  s.table("t", "a | b").string("k", "either a|b").default_value("x|y");
  EXPECT_THAT(s.to_markdown(), HasSubstr("| `k` | string | `\"x\\|y\"` |  |  | either a\\|b |"));
}

TEST(DeckSuggest, EditDistance) {
  EXPECT_EQ(edit_distance("dt", "dt"), 0u);
  EXPECT_EQ(edit_distance("dtt", "dt"), 1u);
  EXPECT_EQ(edit_distance("nbdy", "nbody"), 1u);
  EXPECT_EQ(edit_distance("itnegrator", "integrator"), 1u);  // adjacent swap counts once
  EXPECT_EQ(edit_distance("DT", "dt"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(DeckSuggest, NearestOnlyWhenClose) {
  const std::vector<std::string> keys{"n", "dt", "softening", "integrator", "seed"};
  EXPECT_EQ(nearest("dtt", keys), "dt");
  EXPECT_EQ(nearest("nn", keys), "n");
  EXPECT_EQ(nearest("softenning", keys), "softening");
  EXPECT_EQ(nearest("sed", keys), "seed");
  EXPECT_EQ(nearest("x", keys), std::nullopt);  // one letter swapped for another is no typo
  EXPECT_EQ(nearest("timestep", keys), std::nullopt);
  EXPECT_EQ(did_you_mean("nbdy", std::vector<std::string>{"nbody"}, "[", "]"), "; did you mean [nbody]?");
  EXPECT_EQ(did_you_mean("zzz", keys), "");
}

}  // namespace
}  // namespace tessera::deck::test
