// Failures of the HDF5 layer: clear messages naming the file and object, raised on every
// rank (agreed, so no rank hangs), for missing files, files that are not HDF5, truncated
// files, missing objects, wrong types, and arguments only one rank gets wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "core/partition.hpp"
#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;

TEST(H5Errors, MissingFile) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = dir / "missing.h5";
  const std::string msg = test::thrown_message<InputError>([&] { File::open(ctx, path); });
  TESSERA_EXPECT_CONTAINS(msg, "cannot open HDF5 file " + path.string() + ": no such file");
}

TEST(H5Errors, FileMissingOnOneRankOnlyIsRefusedEverywhere) {
  auto& ctx = context();
  if (ctx.size() == 1) GTEST_SKIP() << "needs a rank that sees the file and one that does not";
  test::TempDir dir(ctx);
  { File::create(ctx, dir / "here.h5"); }
  // As if the path were node-local and absent from the last rank's node.
  const auto path = ctx.rank() == ctx.size() - 1 ? dir / "not_here.h5" : dir / "here.h5";
  const std::string msg = test::thrown_message<InputError>([&] { File::open(ctx, path); });
  TESSERA_EXPECT_CONTAINS(msg, "not_here.h5: no such file");
}

TEST(H5Errors, NotHdf5AndTruncatedFiles) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto text = dir / "notes.h5";
  const auto cut = dir / "cut.h5";
  {
    File f = File::create(ctx, cut);
    const Range r = block_range(100000, ctx.size(), ctx.rank());
    std::vector<double> v(static_cast<std::size_t>(r.count), 1.5);
    write_1d<double>(f.root(), "x", v, r.begin, 100000);
  }
  if (ctx.is_root()) {
    std::ofstream(text) << "this is not an HDF5 file, just some text that is long enough to be read\n";
    std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  }
  comm::barrier(ctx);
  std::string msg = test::thrown_message<InputError>([&] { File::open(ctx, text); });
  TESSERA_EXPECT_CONTAINS(msg, text.string() + " is truncated or not an HDF5 file");
  msg = test::thrown_message<InputError>([&] { File::open(ctx, cut); });
  TESSERA_EXPECT_CONTAINS(msg, cut.string() + " is truncated or not an HDF5 file");
  TESSERA_EXPECT_CONTAINS(msg, "truncated file");  // HDF5's own description is kept
}

TEST(H5Errors, MissingObjectsAndWrongTypes) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = dir / "t.h5";
  File f = File::create(ctx, path);
  const Range r = block_range(40, ctx.size(), ctx.rank());
  std::vector<std::int64_t> v(static_cast<std::size_t>(r.count), 42);
  write_1d<std::int64_t>(f.root(), "x", v, r.begin, 40);

  std::string msg = test::thrown_message<InputError>([&] { read_1d<float>(f.root(), "x", r.begin, r.count); });
  TESSERA_EXPECT_CONTAINS(msg, "dataset /x in " + path.string() + " has type int64, expected float32");

  msg = test::thrown_message<InputError>([&] { read_1d<double>(f.root(), "nothing/here", 0, 0); });
  TESSERA_EXPECT_CONTAINS(msg, "file " + path.string() + " has no dataset /nothing/here");

  msg = test::thrown_message<InputError>([&] { f.root().open_group("g"); });
  TESSERA_EXPECT_CONTAINS(msg, "has no group /g");
}

TEST(H5Errors, OneRankReadingPastTheEndIsRefusedEverywhere) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "e.h5");
  const Range r = block_range(40, ctx.size(), ctx.rank());
  std::vector<double> v(static_cast<std::size_t>(r.count), 2.0);
  write_1d<double>(f.root(), "x", v, r.begin, 40);
  const bool last = ctx.rank() == ctx.size() - 1;
  const std::string msg = test::thrown_message<InputError>(
      [&] { read_1d<double>(f.root(), "x", last ? 35 : 0, last ? 10 : 5); });
  TESSERA_EXPECT_CONTAINS(msg, "reading dataset /x");
  TESSERA_EXPECT_CONTAINS(msg, "exceeds the global extent [40]");
}

TEST(H5Errors, RanksDisagreeingOnTheGlobalSizeIsCaught) {
  auto& ctx = context();
  if (ctx.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "d.h5");
  const std::vector<double> v(4, 3.0);
  const std::int64_t global = ctx.is_root() ? 4 * ctx.size() : 4 * ctx.size() + 1;
  const std::string msg = test::thrown_message<comm::CollectiveError>(
      [&] { write_1d<double>(f.root(), "x", v, 4 * ctx.rank(), global); });
  TESSERA_EXPECT_CONTAINS(msg, "ranks disagree on its name, type or global extent");
}

TEST(H5Errors, ClosingWithOpenObjectsNamesThem) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "o.h5");
  {
    const Group g = f.root().create_group("still/open");
    const std::string msg = test::thrown_message<std::logic_error>([&] { f.close(); });
    TESSERA_EXPECT_CONTAINS(msg, "/still/open");
  }
  f.close();
  EXPECT_FALSE(f.is_open());
}

}  // namespace
}  // namespace tessera::io
