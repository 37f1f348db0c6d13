// Checkpoints: bitwise round trip of manifest and data across decompositions, keep-last-K
// pruning, temporary files never taken for checkpoints, and refusal - with a clear message on
// every rank - of missing, truncated, non-HDF5, manifest-less, foreign, newer and corrupted
// checkpoints.
#include <gtest/gtest.h>

#include <fstream>
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

constexpr std::int64_t kParticles = 1001;
const Index3 kGrid{6, 5, 4};

CheckpointManifest manifest(const std::string& solver = "nbody", int version = 2) {
  CheckpointManifest m;
  m.solver = solver;
  m.format_version = version;
  m.time = 12.375;
  m.deck_text = "[run]\nsolver = \"" + solver + "\"\nsteps = 100\n[nbody]\nbodies = 1001 # ε = 1e-3\n";
  m.rng_state = {0x0123456789ABCDEFull, 42, 0xFFFFFFFFFFFFFFFFull};
  return m;
}

template <class T>
std::vector<T> values(std::uint64_t seed, Range r) {
  std::vector<T> out(static_cast<std::size_t>(r.count));
  for (std::int64_t i = 0; i < r.count; ++i) out[static_cast<std::size_t>(i)] = value_at<T>(seed, r.begin + i);
  return out;
}

// The field's value at a cell, from its file-order index.
float field_value(std::uint64_t seed, std::int64_t i, std::int64_t j, std::int64_t k) {
  return value_at<float>(seed + 100, (k * kGrid[1] + j) * kGrid[0] + i);
}

std::filesystem::path write_checkpoint(comm::Context& ctx, const std::filesystem::path& dir, std::int64_t step,
                                       const CheckpointManifest& m, std::uint64_t seed) {
  CheckpointWriter w(ctx, dir, step, m);
  const Range r = block_range(kParticles, ctx.size(), ctx.rank());
  w.write_1d_checked<double>("particles/x", values<double>(seed, r), r.begin, kParticles);
  write_1d_checked<std::int64_t>(w.root(), "particles/id", values<std::int64_t>(seed + 1, r), r.begin, kParticles);

  comm::CartDecomposition d(ctx, kGrid, {0, 0, 0}, {false, false, false});
  const Box3 box = box_of(d);
  const Strided3 mem = Strided3::ghosted(box.size, 1, box.size[0] + 2 + 5);
  std::vector<float> local(static_cast<std::size_t>(mem.elements()), -1.0e30f);  // poisoned ghosts
  for (std::int64_t k = 0; k < box.size[2]; ++k)
    for (std::int64_t j = 0; j < box.size[1]; ++j)
      for (std::int64_t i = 0; i < box.size[0]; ++i)
        local[static_cast<std::size_t>(mem.index(i, j, k))] =
            field_value(seed, box.offset[0] + i, box.offset[1] + j, box.offset[2] + k);
  w.write_3d_checked<float>("fields/Ez", local, box, mem, {.chunk = {3, 3, 2}});
  return w.commit();
}

// Reads everything back with another partition (ranks in reverse order, another grid) and
// compares bitwise.
void expect_checkpoint(comm::Context& ctx, const std::filesystem::path& path, std::uint64_t seed,
                       std::int64_t step) {
  CheckpointReader reader(ctx, path, "nbody", 2);
  const CheckpointManifest want = manifest();
  const CheckpointManifest& got = reader.manifest();
  EXPECT_EQ(got.solver, want.solver);
  EXPECT_EQ(got.format_version, want.format_version);
  EXPECT_EQ(got.step, step);
  EXPECT_EQ(got.time, want.time);
  EXPECT_EQ(got.deck_text, want.deck_text);
  EXPECT_EQ(got.rng_state, want.rng_state);
  EXPECT_EQ(got.ranks, ctx.size());
  EXPECT_FALSE(got.tessera_version.empty());
  // The root carries the provenance of every tessera file, from the manifest.
  EXPECT_EQ(read_attribute<std::string>(reader.root(), "solver"), want.solver);
  EXPECT_EQ(read_attribute<std::string>(reader.root(), "deck"), want.deck_text);
  EXPECT_EQ(read_attribute<std::int32_t>(reader.root(), "ranks"), got.ranks);
  for (const char* name : kProvenanceAttributes) EXPECT_TRUE(has_attribute(reader.root(), name)) << name;

  const Range r = block_range(kParticles, ctx.size(), ctx.size() - 1 - ctx.rank());
  const auto x = reader.read_1d_checked<double>("particles/x", r.begin, r.count);
  const auto want_x = values<double>(seed, r);
  ASSERT_EQ(x.size(), want_x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(test::same_bits(x[i], want_x[i]));
  EXPECT_EQ(read_1d_checked<std::int64_t>(reader.root(), "particles/id", r.begin, r.count),
            values<std::int64_t>(seed + 1, r));

  comm::CartDecomposition d(ctx, kGrid, {1, 1, ctx.size()}, {false, false, false});
  const Box3 box = box_of(d);
  const Strided3 mem = Strided3::dense(box.size);
  std::vector<float> field(static_cast<std::size_t>(mem.elements()));
  reader.read_3d_checked<float>("fields/Ez", field, box, mem);
  for (std::int64_t k = 0; k < box.size[2]; ++k)
    for (std::int64_t j = 0; j < box.size[1]; ++j)
      for (std::int64_t i = 0; i < box.size[0]; ++i)
        ASSERT_TRUE(test::same_bits(field[static_cast<std::size_t>(mem.index(i, j, k))],
                                    field_value(seed, box.offset[0] + i, box.offset[1] + j, box.offset[2] + k)));
}

TEST(Checkpoint, RoundTripIsBitwiseOnAnotherDecomposition) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path() / "ckpt", 1234, manifest(), 5);
  EXPECT_EQ(path, dir.path() / "ckpt" / "checkpoint_00001234.h5");
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  expect_checkpoint(ctx, path, 5, 1234);
}

TEST(Checkpoint, KeepsTheLastK) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  CheckpointManager mgr(ctx, dir.path(), 2);
  EXPECT_TRUE(mgr.list().empty());
  EXPECT_FALSE(mgr.newest().has_value());
  if (ctx.is_root()) {  // files that are not checkpoints are ignored, never deleted
    std::ofstream(dir / "notes.txt") << "x";
    std::ofstream(dir / "checkpoint_abc.h5") << "x";
  }
  std::vector<std::int64_t> removed;
  for (std::int64_t step : {10, 20, 30, 40, 50}) {
    write_checkpoint(ctx, mgr.dir(), step, manifest(), static_cast<std::uint64_t>(step));
    for (std::int64_t s : mgr.prune()) removed.push_back(s);
  }
  EXPECT_EQ(mgr.list(), (std::vector<std::int64_t>{40, 50}));
  EXPECT_EQ(mgr.newest(), 50);
  EXPECT_EQ(removed, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_FALSE(std::filesystem::exists(mgr.path_for(30)));
  EXPECT_TRUE(std::filesystem::exists(dir / "notes.txt"));
  EXPECT_TRUE(std::filesystem::exists(dir / "checkpoint_abc.h5"));
  expect_checkpoint(ctx, mgr.path_for(50), 50, 50);
}

TEST(Checkpoint, TemporaryFilesAreNeverCheckpoints) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  CheckpointManager mgr(ctx, dir.path(), 3);
  write_checkpoint(ctx, dir.path(), 1, manifest(), 1);
  {
    CheckpointWriter w(ctx, dir.path(), 2, manifest());
    const Range r = block_range(kParticles, ctx.size(), ctx.rank());
    w.write_1d_checked<double>("particles/x", values<double>(2, r), r.begin, kParticles);
    // Written but not committed: only the temporary name exists, and it is not listed.
    EXPECT_TRUE(std::filesystem::exists(w.temporary_path()));
    EXPECT_FALSE(std::filesystem::exists(w.final_path()));
    EXPECT_EQ(mgr.list(), std::vector<std::int64_t>{1});
    EXPECT_EQ(mgr.newest(), 1);
    comm::barrier(ctx);
  }  // destroyed without commit: no checkpoint appears and the temporary is gone
  EXPECT_FALSE(std::filesystem::exists(mgr.path_for(2)));
  EXPECT_FALSE(std::filesystem::exists(mgr.path_for(2).string() + ".tmp"));
  EXPECT_EQ(mgr.list(), std::vector<std::int64_t>{1});

  // A leftover of a crashed run is removed when a manager starts.
  const auto stale = dir / "checkpoint_00000003.h5.tmp";
  if (ctx.is_root()) std::ofstream(stale) << "half a checkpoint";
  comm::barrier(ctx);
  EXPECT_EQ(mgr.list(), std::vector<std::int64_t>{1});
  CheckpointManager restarted(ctx, dir.path(), 3);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_EQ(restarted.newest(), 1);
}

TEST(Checkpoint, AWriterUnwoundByAnAgreedErrorLeavesNothing) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  std::filesystem::path tmp;
  EXPECT_THROW(
      {
        CheckpointWriter w(ctx, dir.path(), 9, manifest());
        tmp = w.temporary_path();
        comm::all_ok(ctx, ctx.rank() != ctx.size() - 1, "solver failed while writing");
      },
      comm::CollectiveError);
  comm::barrier(ctx);
  EXPECT_FALSE(std::filesystem::exists(tmp));
  EXPECT_FALSE(std::filesystem::exists(checkpoint_path(dir.path(), 9)));
}

// ---- refusals -------------------------------------------------------------------------------

std::string refusal(comm::Context& ctx, const std::filesystem::path& path, const std::string& solver = "nbody",
                    int max_version = 2) {
  return test::thrown_message<InputError>([&] { (void)CheckpointReader(ctx, path, solver, max_version); });
}

TEST(CheckpointRefusal, MissingFile) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = checkpoint_path(dir.path(), 7);
  const std::string msg = refusal(ctx, path);
  TESSERA_EXPECT_CONTAINS(msg, "checkpoint " + path.string() + " does not exist");
}

TEST(CheckpointRefusal, TruncatedFile) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 3, manifest(), 3);
  if (ctx.is_root()) std::filesystem::resize_file(path, std::filesystem::file_size(path) * 2 / 3);
  comm::barrier(ctx);
  const std::string msg = refusal(ctx, path);
  TESSERA_EXPECT_CONTAINS(msg, "checkpoint " + path.string() + " is truncated or not an HDF5 file");
}

TEST(CheckpointRefusal, NotAnHdf5File) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = checkpoint_path(dir.path(), 4);
  if (ctx.is_root()) std::ofstream(path) << "{\"not\": \"hdf5\", \"padding\": \"................................\"}\n";
  comm::barrier(ctx);
  TESSERA_EXPECT_CONTAINS(refusal(ctx, path), "is truncated or not an HDF5 file");
}

TEST(CheckpointRefusal, MissingManifest) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = checkpoint_path(dir.path(), 5);
  {
    File f = File::create(ctx, path);
    const Range r = block_range(10, ctx.size(), ctx.rank());
    write_1d<double>(f.root(), "x", values<double>(1, r), r.begin, 10);
  }
  TESSERA_EXPECT_CONTAINS(refusal(ctx, path), path.string() + " is not a complete tessera checkpoint: it has no /manifest");
}

TEST(CheckpointRefusal, ForeignSolverAndNewerFormat) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto fdtd = write_checkpoint(ctx, dir.path() / "a", 6, manifest("fdtd", 1), 6);
  TESSERA_EXPECT_CONTAINS(refusal(ctx, fdtd, "nbody"),
                          "checkpoint " + fdtd.string() + " was written by solver 'fdtd', this run is 'nbody'");
  const auto newer = write_checkpoint(ctx, dir.path() / "b", 6, manifest("nbody", 3), 6);
  const std::string msg = refusal(ctx, newer, "nbody", 2);
  TESSERA_EXPECT_CONTAINS(msg, "has format version 3, newer than version 2");
}

// Flips one byte in the middle of a dataset's raw data on disk (found with H5Dget_offset).
TEST(CheckpointRefusal, FlippedBytesInADataset) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 8, manifest(), 8);
  haddr_t offset = HADDR_UNDEF;
  {
    File f = File::open(ctx, path);
    offset = H5Dget_offset(f.root().open_dataset("particles/x").id());  // contiguous: one extent
  }
  ASSERT_NE(offset, HADDR_UNDEF);
  if (ctx.is_root()) {
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    const auto at = static_cast<std::streamoff>(offset + 8 * 500 + 3);
    io.seekg(at);
    char c = 0;
    io.read(&c, 1);
    c = static_cast<char>(c ^ 0x10);
    io.seekp(at);
    io.write(&c, 1);
  }
  comm::barrier(ctx);
  CheckpointReader reader(ctx, path, "nbody", 2);  // the manifest is intact
  const Range r = block_range(kParticles, ctx.size(), ctx.rank());
  const std::string msg =
      test::thrown_message<InputError>([&] { reader.read_1d_checked<double>("particles/x", r.begin, r.count); });
  TESSERA_EXPECT_CONTAINS(msg, "dataset /particles/x in " + path.string() + " is corrupted");
  // The other datasets are fine.
  EXPECT_NO_THROW(reader.read_1d_checked<std::int64_t>("particles/id", r.begin, r.count));
}

// Rewrites data through HDF5 without updating the checksum: a swap of two values in 1D (which
// a plain sum would miss) and one changed cell in 3D.
TEST(CheckpointRefusal, DataRewrittenWithoutItsChecksum) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 9, manifest(), 9);
  {
    File f = File::open(ctx, path, Mode::read_write);
    std::vector<std::int64_t> all = read_1d<std::int64_t>(f.root(), "particles/id", 0, kParticles);
    std::swap(all[10], all[900]);
    write_1d<std::int64_t>(f.root(), "particles/id", ctx.is_root() ? std::span<const std::int64_t>(all)
                                                                    : std::span<const std::int64_t>(),
                           0, kParticles);
    const Box3 one{kGrid, {2, 3, 1}, {ctx.is_root() ? 1 : 0, 1, 1}};
    const float changed = 3.5f;
    write_3d<float>(f.root(), "fields/Ez", std::span<const float>(&changed, 1), one, Strided3::dense({1, 1, 1}));
  }
  CheckpointReader reader(ctx, path, "nbody", 2);
  const Range r = block_range(kParticles, ctx.size(), ctx.rank());
  std::string msg = test::thrown_message<InputError>(
      [&] { reader.read_1d_checked<std::int64_t>("particles/id", r.begin, r.count); });
  TESSERA_EXPECT_CONTAINS(msg, "dataset /particles/id in " + path.string() + " is corrupted");

  comm::CartDecomposition d(ctx, kGrid, {0, 0, 0}, {false, false, false});
  const Box3 box = box_of(d);
  std::vector<float> field(static_cast<std::size_t>(box.volume()));
  msg = test::thrown_message<InputError>(
      [&] { reader.read_3d_checked<float>("fields/Ez", field, box, Strided3::dense(box.size)); });
  TESSERA_EXPECT_CONTAINS(msg, "dataset /fields/Ez in " + path.string() + " is corrupted");
}

}  // namespace
}  // namespace tessera::io
