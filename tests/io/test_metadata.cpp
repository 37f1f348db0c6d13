// The self-describing attributes every tessera file carries: `units` on datasets
// (io/units.hpp) and the provenance on the root (io/provenance.hpp).
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "comm/collectives.hpp"
#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"
#include "tessera/version.hpp"

namespace tessera::io {
namespace {

using test::context;

TEST(Units, WrittenAsOneVariableLengthStringAndReadBack) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "u.h5");
  const std::vector<double> one{1.0};
  const Dataset d =
      write_1d<double>(f.root(), "E", ctx.is_root() ? std::span<const double>(one) : std::span<const double>(), 0, 1);
  EXPECT_EQ(read_units(d), "");  // none yet
  write_units(d, "V/m");
  EXPECT_EQ(read_units(d), "V/m");
  EXPECT_TRUE(is_vlen_string_attribute(d, kUnitsAttribute));
  write_units(d, "code_length (= 3.0857e+21 cm)");  // replaces
  EXPECT_EQ(read_units(d), "code_length (= 3.0857e+21 cm)");
  // Every dataset names a unit; a pure number says "1".
  EXPECT_THROW(write_units(d, ""), std::invalid_argument);
  EXPECT_EQ(read_units(d), "code_length (= 3.0857e+21 cm)");
}

TEST(Provenance, EveryAttributeWithTheSameValueOnEveryRank) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  {
    File f = File::create(ctx, dir / "p.h5");
    write_provenance(f.root(), {"fdtd", "[run]\nsolver = \"fdtd\"\n"});
  }
  File f = File::open(ctx, dir / "p.h5");
  const Group root = f.root();
  for (const char* name : kProvenanceAttributes) EXPECT_TRUE(has_attribute(root, name)) << name;
  EXPECT_EQ(read_attribute<std::string>(root, "solver"), "fdtd");
  EXPECT_EQ(read_attribute<std::string>(root, "deck"), "[run]\nsolver = \"fdtd\"\n");
  EXPECT_EQ(read_attribute<std::string>(root, "tessera_version"), kVersion);
  EXPECT_EQ(read_attribute<std::string>(root, "tessera_commit"), kGitCommit);
  EXPECT_EQ(read_attribute<std::int32_t>(root, "ranks"), ctx.size());
  const std::string created = read_attribute<std::string>(root, "created");
  const std::regex iso_utc(R"(20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z)");
  EXPECT_TRUE(std::regex_match(created, iso_utc)) << created;
  // Rank 0's clock: the same text everywhere (metadata is written once, from identical values).
  std::string mine = created, first = created;
  comm::broadcast(ctx, first);
  EXPECT_EQ(mine, first);
}

}  // namespace
}  // namespace tessera::io
