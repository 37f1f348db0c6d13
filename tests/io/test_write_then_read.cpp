// A real P -> Q restart: ctest runs this binary twice on one directory (ctest FIXTURES):
// io_write_then_read writes plain datasets and a checkpoint on 3 ranks, io_read_after_write
// reads them back on 2 ranks with their own decomposition and verifies every value bitwise.
// The directory comes from TESSERA_IO_P2Q_DIR; without it the tests skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "comm/cart.hpp"
#include "core/partition.hpp"
#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;
using test::value_at;

constexpr std::int64_t kN = 100003;
const Index3 kGrid{11, 7, 5};
constexpr std::uint64_t kSeed = 31;

std::filesystem::path shared_dir() {
  const char* d = std::getenv("TESSERA_IO_P2Q_DIR");
  return d ? std::filesystem::path(d) : std::filesystem::path();
}

double cell(std::int64_t i, std::int64_t j, std::int64_t k) {
  return value_at<double>(kSeed + 1, (k * kGrid[1] + j) * kGrid[0] + i);
}

std::vector<std::uint32_t> ids(Range r) {
  std::vector<std::uint32_t> out(static_cast<std::size_t>(r.count));
  for (std::int64_t i = 0; i < r.count; ++i) out[static_cast<std::size_t>(i)] = value_at<std::uint32_t>(kSeed, r.begin + i);
  return out;
}

std::vector<double> field(const Box3& box, const Strided3& mem) {
  std::vector<double> local(static_cast<std::size_t>(mem.elements()), -1.0);
  for (std::int64_t k = 0; k < box.size[2]; ++k)
    for (std::int64_t j = 0; j < box.size[1]; ++j)
      for (std::int64_t i = 0; i < box.size[0]; ++i)
        local[static_cast<std::size_t>(mem.index(i, j, k))] = cell(box.offset[0] + i, box.offset[1] + j, box.offset[2] + k);
  return local;
}

TEST(WriteThenRead, Write) {
  auto& ctx = context();
  const auto dir = shared_dir();
  if (dir.empty()) GTEST_SKIP() << "TESSERA_IO_P2Q_DIR not set (run through ctest)";
  if (ctx.is_root()) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  comm::barrier(ctx);

  const Range r = block_range(kN, ctx.size(), ctx.rank());
  comm::CartDecomposition d(ctx, kGrid, {0, 0, 0}, {false, false, false});
  const Box3 box = box_of(d);
  const Strided3 mem = Strided3::ghosted(box.size, 2);
  const auto local = field(box, mem);
  {
    File f = File::create(ctx, dir / "data.h5");
    write_1d<std::uint32_t>(f.root(), "ids", ids(r), r.begin, kN, {.chunk = 4096});
    write_3d<double>(f.root(), "E", local, box, mem);
    write_attribute(f.root(), "written_by_ranks", static_cast<std::int32_t>(ctx.size()));
  }
  CheckpointManifest m;
  m.solver = "fdtd";
  m.format_version = 1;
  m.time = 0.25;
  m.deck_text = "[fdtd]\ncells = [11, 7, 5]\n";
  m.rng_state = {1, 2, 3};
  CheckpointWriter w(ctx, dir, 17, m);
  w.write_1d_checked<std::uint32_t>("ids", ids(r), r.begin, kN);
  w.write_3d_checked<double>("E", local, box, mem);
  w.commit();
}

TEST(WriteThenRead, Read) {
  auto& ctx = context();
  const auto dir = shared_dir();
  if (dir.empty()) GTEST_SKIP() << "TESSERA_IO_P2Q_DIR not set (run through ctest)";

  const Range r = block_range(kN, ctx.size(), ctx.rank());
  comm::CartDecomposition d(ctx, kGrid, {0, 0, 0}, {false, false, false});
  const Box3 box = box_of(d);
  const Strided3 mem = Strided3::ghosted(box.size, 1, box.size[0] + 2 + 1);
  {
    File f = File::open(ctx, dir / "data.h5");
    const auto writers = read_attribute<std::int32_t>(f.root(), "written_by_ranks");
    EXPECT_NE(writers, ctx.size()) << "this test is meant to read on another rank count than it wrote";
    EXPECT_EQ(read_1d<std::uint32_t>(f.root(), "ids", r.begin, r.count), ids(r));
    std::vector<double> got(static_cast<std::size_t>(mem.elements()), -1.0);
    read_3d<double>(f.root(), "E", got, box, mem);
    EXPECT_EQ(got, field(box, mem));  // ghosts and padding keep their -1
  }
  CheckpointManager mgr(ctx, dir, 2);
  ASSERT_EQ(mgr.newest(), 17);
  CheckpointReader reader(ctx, mgr.path_for(17), "fdtd", 1);
  EXPECT_EQ(reader.manifest().ranks, 3);
  EXPECT_EQ(reader.manifest().deck_text, "[fdtd]\ncells = [11, 7, 5]\n");
  EXPECT_EQ(reader.read_1d_checked<std::uint32_t>("ids", r.begin, r.count), ids(r));
  std::vector<double> got(static_cast<std::size_t>(mem.elements()), -1.0);
  reader.read_3d_checked<double>("E", got, box, mem);
  EXPECT_EQ(got, field(box, mem));
}

}  // namespace
}  // namespace tessera::io
