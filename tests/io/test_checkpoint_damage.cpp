// Damaged checkpoints (issue 30): an edited manifest, a checkpoint under another step's name,
// flipped bytes in HDF5 metadata, a deleted dataset and changed data are each refused with one
// agreed InputError on every rank (comm::AgreedInputError: rank 0 prints it once, every rank
// exits 2) that says "checkpoint X is corrupted" or "dataset D in X is corrupted".
#include <gtest/gtest.h>
#include <hdf5.h>

#include <fstream>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/partition.hpp"
#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;

constexpr std::int64_t kN = 1001;

CheckpointManifest manifest() {
  CheckpointManifest m;
  m.solver = "nbody";
  m.format_version = 2;
  m.time = 0.2;
  m.deck_text = "[run]\nsolver = \"nbody\"\nsteps = 20\n";
  m.rng_state = {7, 8};
  return m;
}

std::filesystem::path write_checkpoint(comm::Context& ctx, const std::filesystem::path& dir, std::int64_t step) {
  CheckpointWriter w(ctx, dir, step, manifest());
  const Range r = block_range(kN, ctx.size(), ctx.rank());
  std::vector<double> x(static_cast<std::size_t>(r.count));
  for (std::int64_t i = 0; i < r.count; ++i) x[static_cast<std::size_t>(i)] = 0.5 * double(r.begin + i) + 1.0;
  w.write_1d_checked<double>("particles/x", x, r.begin, kN);
  return w.commit();
}

// Rank 0 changes the file with the plain (serial) HDF5 API, as a user with h5py would; then
// every rank waits for it.
template <class F>
void edit_on_root(comm::Context& ctx, const std::filesystem::path& path, F&& edit) {
  if (ctx.is_root()) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    edit(f);
    ASSERT_GE(H5Fclose(f), 0);
  }
  comm::barrier(ctx);
}

// Overwrites attribute `name` of object `object` (HDF5 1.10 cannot write one opened by path
// in a file with dense attribute storage: open the object first).
void write_attribute_raw(hid_t f, const char* object, const char* name, hid_t type, const void* value) {
  const hid_t o = H5Oopen(f, object, H5P_DEFAULT);
  ASSERT_GE(o, 0);
  const hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  ASSERT_GE(a, 0);
  EXPECT_GE(H5Awrite(a, type, value), 0);
  H5Aclose(a);
  H5Oclose(o);
}

void flip_byte(comm::Context& ctx, const std::filesystem::path& path, std::uint64_t at) {
  if (ctx.is_root()) {
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekg(static_cast<std::streamoff>(at));
    char c = 0;
    io.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    io.seekp(static_cast<std::streamoff>(at));
    io.write(&c, 1);
  }
  comm::barrier(ctx);
}

// The refusal of opening `path`, which must be agreed on every rank.
std::string refusal(comm::Context& ctx, const std::filesystem::path& path) {
  return test::thrown_message<comm::AgreedInputError>([&] { (void)CheckpointReader(ctx, path, "nbody", 2); });
}

TEST(CheckpointDamage, AnEditedManifestStepIsRefused) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 20);
  edit_on_root(ctx, path, [](hid_t f) {
    const std::int64_t step = 999;
    write_attribute_raw(f, "manifest", "step", H5T_NATIVE_INT64, &step);
  });
  const std::string msg = refusal(ctx, path);
  TESSERA_EXPECT_CONTAINS(msg, "checkpoint " + path.string() + " is corrupted: its manifest (solver nbody, step 999");
  TESSERA_EXPECT_CONTAINS(msg, "does not match the manifest's checksum");
}

TEST(CheckpointDamage, AnEditedManifestTimeIsRefused) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 20);
  edit_on_root(ctx, path, [](hid_t f) {
    const double t = 9.99;
    write_attribute_raw(f, "manifest", "time", H5T_NATIVE_DOUBLE, &t);
  });
  TESSERA_EXPECT_CONTAINS(refusal(ctx, path), "is corrupted: its manifest (solver nbody, step 20, time 9.99)");
}

TEST(CheckpointDamage, AManifestWithoutChecksumIsCheckedAgainstTheFileName) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 20);
  edit_on_root(ctx, path, [](hid_t f) {
    const hid_t g = H5Gopen2(f, "manifest", H5P_DEFAULT);
    ASSERT_GE(g, 0);
    EXPECT_GE(H5Adelete(g, "checksum"), 0);  // as in a checkpoint written before it had one
    H5Gclose(g);
  });
  {
    CheckpointReader reader(ctx, path, "nbody", 2);  // still accepted as it is
    EXPECT_EQ(reader.manifest().step, 20);
  }
  edit_on_root(ctx, path, [](hid_t f) {
    const std::int64_t step = 999;
    write_attribute_raw(f, "manifest", "step", H5T_NATIVE_INT64, &step);
  });
  TESSERA_EXPECT_CONTAINS(refusal(ctx, path), "checkpoint " + path.string() +
                                                  " is corrupted: its manifest says step 999, its name "
                                                  "checkpoint_00000020.h5 says step 20");
}

TEST(CheckpointDamage, ACheckpointUnderAnotherStepsNameIsRefused) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 20);
  const auto renamed = checkpoint_path(dir.path(), 30);
  if (ctx.is_root()) std::filesystem::copy_file(path, renamed);
  comm::barrier(ctx);
  TESSERA_EXPECT_CONTAINS(refusal(ctx, renamed), "its manifest says step 20, its name checkpoint_00000030.h5 says "
                                                 "step 30");
  // Any other name is the user's choice (a copy called bad.h5 or keep.h5 restarts).
  const auto copy = dir / "keep.h5";
  if (ctx.is_root()) std::filesystem::copy_file(path, copy);
  comm::barrier(ctx);
  CheckpointReader reader(ctx, copy, "nbody", 2);
  EXPECT_EQ(reader.manifest().step, 20);
}

// A flipped byte in a dataset's object header (HDF5 checksums it): found when the checkpoint
// is opened, on every rank, not part-way through the restart.
TEST(CheckpointDamage, FlippedMetadataIsRefusedWhenOpened) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 20);
  haddr_t header = HADDR_UNDEF;
  if (ctx.is_root()) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    H5O_info_t info;
    ASSERT_GE(H5Oget_info_by_name2(f, "particles/x", &info, H5O_INFO_BASIC, H5P_DEFAULT), 0);
    header = info.addr;
    H5Fclose(f);
  }
  header = comm::broadcast_value<std::uint64_t>(ctx, header);
  flip_byte(ctx, path, header + 12);
  const std::string msg = refusal(ctx, path);
  TESSERA_EXPECT_CONTAINS(msg, "checkpoint " + path.string() + " is corrupted: HDF5: cannot read the metadata of");
}

// Byte flips all over the first 3.5 kB (superblock, root group, manifest, dataset headers):
// every one is either harmless or refused as an agreed InputError, never another exception.
TEST(CheckpointDamage, ByteFlipsInTheHeadAreInputErrors) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto good = write_checkpoint(ctx, dir.path(), 20);
  const auto size = static_cast<std::uint64_t>(std::filesystem::file_size(good));
  int refused = 0;
  for (std::uint64_t at = 0; at < std::min<std::uint64_t>(3500, size); at += 97) {
    const auto path = dir / "flipped.h5";
    if (ctx.is_root()) std::filesystem::copy_file(good, path, std::filesystem::copy_options::overwrite_existing);
    flip_byte(ctx, path, at);
    try {
      CheckpointReader reader(ctx, path, "nbody", 2);
      const Range r = block_range(kN, ctx.size(), ctx.rank());
      (void)reader.read_1d_checked<double>("particles/x", r.begin, r.count);
    } catch (const comm::AgreedInputError& e) {
      ++refused;
      const std::string what = e.what();
      EXPECT_TRUE(what.find("is corrupted") != std::string::npos || what.find("is truncated") != std::string::npos ||
                  what.find("damaged manifest") != std::string::npos || what.find("cannot open") != std::string::npos)
          << "offset " << at << ": " << what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "offset " << at << ": not an agreed input error: " << e.what();
    }
  }
  EXPECT_GT(refused, 10);
}

TEST(CheckpointDamage, ADeletedDatasetIsOneAgreedError) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 20);
  edit_on_root(ctx, path, [](hid_t f) { EXPECT_GE(H5Ldelete(f, "particles/x", H5P_DEFAULT), 0); });
  CheckpointReader reader(ctx, path, "nbody", 2);
  const Range r = block_range(kN, ctx.size(), ctx.rank());
  const std::string msg = test::thrown_message<comm::AgreedInputError>(
      [&] { (void)reader.read_1d_checked<double>("particles/x", r.begin, r.count); });
  TESSERA_EXPECT_CONTAINS(msg, "particles/x");
}

TEST(CheckpointDamage, AChangedChecksumIsOneAgreedError) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = write_checkpoint(ctx, dir.path(), 20);
  edit_on_root(ctx, path, [](hid_t f) {
    const std::uint64_t wrong = 12345;
    write_attribute_raw(f, "particles/x", "checksum", H5T_NATIVE_UINT64, &wrong);
  });
  CheckpointReader reader(ctx, path, "nbody", 2);
  const Range r = block_range(kN, ctx.size(), ctx.rank());
  const std::string msg = test::thrown_message<comm::AgreedInputError>(
      [&] { (void)reader.read_1d_checked<double>("particles/x", r.begin, r.count); });
  TESSERA_EXPECT_CONTAINS(msg, "dataset /particles/x in " + path.string() + " is corrupted");
}

}  // namespace
}  // namespace tessera::io
