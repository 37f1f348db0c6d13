// Whole runs through the run loop on P ranks: a restart equals the uninterrupted run bit for
// bit (state and diagnostics), a snapshot read back with ic = "file" continues exactly, and
// the snapshot's header says what yt needs (SWIFT's layout, positions in the box, units).
#include <gtest/gtest.h>

#include <algorithm>

#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "tests/solvers/nbody/nbody_test_util.hpp"

using namespace tessera;
using namespace tessera::nbody;
using tessera::nbody::test::context;
namespace nt = tessera::nbody::test;

namespace {

template <class T>
void expect_same_bits(const SnapshotData<T>& a, const SnapshotData<T>& b) {
  ASSERT_EQ(a.n_total, b.n_total);
  ASSERT_EQ(a.bodies.size(), b.bodies.size());
  for (std::size_t i = 0; i < a.bodies.size(); ++i) {
    const auto &p = a.bodies.pos_mass[i], &q = b.bodies.pos_mass[i];
    ASSERT_EQ(p.x, q.x) << "body " << a.range.begin + std::int64_t(i);
    ASSERT_EQ(p.y, q.y);
    ASSERT_EQ(p.z, q.z);
    ASSERT_EQ(p.w, q.w);
    ASSERT_EQ(a.bodies.vel[i].x, b.bodies.vel[i].x);
    ASSERT_EQ(a.bodies.vel[i].z, b.bodies.vel[i].z);
    ASSERT_EQ(a.bodies.ids[i], b.bodies.ids[i]);
  }
}

std::vector<double> diagnostics_table(const std::filesystem::path& out_dir) {
  const io::File f = io::File::open(context(), out_dir / "diagnostics.h5");
  return io::TimeSeries::open(f.root(), "nbody").read();
}

void copy_on_root(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (context().is_root()) std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  comm::barrier(context());
}

template <class T>
void restart_is_bitwise(const std::string& nbody_tables) {
  nt::TempDir dir;
  const auto out = dir / "out";
  const auto deck = nt::load_deck(
      dir / "deck.toml",
      nt::deck_text(out, 12, "[diagnostics]\nevery = 4\n[checkpoint]\nevery = 6\nkeep = 3\n" + nbody_tables));
  nt::run_deck(deck);
  copy_on_root(out / "snapshot_0000.h5", dir / "uninterrupted.h5");
  const auto full_diag = diagnostics_table(out);
  ASSERT_EQ(full_diag.size(), 4u * 15u);  // steps 0, 4, 8, 12

  const auto summary = nt::run_deck(deck, io::checkpoint_path(out / "checkpoints", 6).string());
  EXPECT_EQ(summary.first_step, 6);
  expect_same_bits(nt::read_snap<T>(dir / "uninterrupted.h5"), nt::read_snap<T>(out / "snapshot_0000.h5"));
  // The diagnostics file lost the interrupted run's rows after step 6 and got them again.
  EXPECT_EQ(diagnostics_table(out), full_diag);
}

}  // namespace

TEST(NbodyRun, RestartEqualsUninterruptedRunLeapfrogSingle) {
  restart_is_bitwise<float>("[nbody]\nn = 77\nic = \"plummer\"\nseed = 3\ndt = 0.02\n");
}

TEST(NbodyRun, RestartEqualsUninterruptedRunEulerDouble) {
  restart_is_bitwise<double>(
      "[nbody]\nn = 45\nic = \"galaxies\"\nintegrator = \"euler\"\nprecision = \"double\"\ndt = 0.01\n");
}

TEST(NbodyRun, SnapshotRoundTripContinuesExactly) {
  // Run A writes a snapshot at step 5 and ends at 10; run B starts from that snapshot and
  // runs 5 steps: B's first snapshot is A's, and B ends exactly where A did.
  nt::TempDir dir;
  const auto a = nt::load_deck(
      dir / "a.toml", nt::deck_text(dir / "a", 10, "[output]\nevery = 5\n[nbody]\nn = 70\nic = \"uniform\"\n"
                                                     "total_mass = 70.0\neps = 0.05\ndt = 0.001\n"));
  nt::run_deck(a);
  const auto b = nt::load_deck(
      dir / "b.toml", nt::deck_text(dir / "b", 5,
                                      "[output]\nevery = 5\n[nbody]\nic = \"file\"\neps = 0.05\ndt = 0.001\n"
                                      "[nbody.file]\npath = \"" +
                                          (dir / "a" / "snapshot_0001.h5").string() + "\"\n"));
  nt::run_deck(b);
  expect_same_bits(nt::read_snap<float>(dir / "a" / "snapshot_0001.h5"),
                   nt::read_snap<float>(dir / "b" / "snapshot_0000.h5"));
  expect_same_bits(nt::read_snap<float>(dir / "a" / "snapshot_0002.h5"),
                   nt::read_snap<float>(dir / "b" / "snapshot_0001.h5"));
  EXPECT_NEAR(nt::read_snap<float>(dir / "b" / "snapshot_0001.h5").time, 0.010, 1e-12);
  // ... and the state did move, so the comparisons above can fail.
  const auto first = nt::read_snap<float>(dir / "a" / "snapshot_0000.h5");
  const auto last = nt::read_snap<float>(dir / "a" / "snapshot_0002.h5");
  if (first.bodies.size() > 0) {
    EXPECT_NE(first.bodies.pos_mass[0].x, last.bodies.pos_mass[0].x);
  }
}

TEST(NbodyRun, SnapshotHeaderIsSwiftStyle) {
  nt::TempDir dir;
  const auto deck = nt::load_deck(dir / "deck.toml",
                                    nt::deck_text(dir / "out", 2, "[nbody]\nn = 33\nprecision = \"double\"\n"));
  nt::run_deck(deck);
  const io::File f = io::File::open(context(), dir / "out" / "snapshot_0000.h5");
  const io::Group h = f.root().open_group("Header");
  EXPECT_EQ(io::read_attribute<std::vector<std::uint32_t>>(h, "NumPart_Total"),
            (std::vector<std::uint32_t>{0, 33, 0, 0, 0, 0}));
  EXPECT_EQ(io::read_attribute<std::vector<std::uint32_t>>(h, "NumPart_Total_HighWord"),
            (std::vector<std::uint32_t>(6, 0)));
  EXPECT_EQ(io::read_attribute<std::vector<std::uint64_t>>(h, "NumPart_ThisFile"),
            (std::vector<std::uint64_t>{0, 33, 0, 0, 0, 0}));
  EXPECT_EQ(io::read_attribute<std::vector<double>>(h, "MassTable"), std::vector<double>(6, 0.0));
  EXPECT_EQ(io::read_attribute<std::int32_t>(h, "NumFilesPerSnapshot"), 1);
  EXPECT_EQ(io::read_attribute<std::int32_t>(h, "Flag_DoublePrecision"), 1);
  EXPECT_DOUBLE_EQ(io::read_attribute<double>(h, "Time"), 0.02);
  // SWIFT's layout, which yt loads with no arguments: the box [0, BoxSize]^3 on each axis,
  // the positions shifted into it by Shift = BoxSize / 2, the units from /Units.
  EXPECT_EQ(io::read_attribute<std::string>(h, "Code"), "SWIFT");
  const auto box = io::read_attribute<std::vector<double>>(h, "BoxSize");
  ASSERT_EQ(box.size(), 3u);
  EXPECT_GT(box[0], 0.0);
  EXPECT_EQ(box[0], box[1]);
  EXPECT_EQ(box[0], box[2]);
  EXPECT_EQ(io::read_attribute<std::vector<double>>(h, "Shift"), std::vector<double>(3, box[0] / 2));
  const io::Group pt = f.root().open_group("PartType1");
  EXPECT_EQ(io::dataset_extent(pt, "Coordinates"), (std::vector<std::int64_t>{33, 3}));
  EXPECT_EQ(io::dataset_element_type(pt, "Coordinates"), io::ElementType::float64);
  EXPECT_EQ(io::dataset_element_type(pt, "ParticleIDs"), io::ElementType::uint64);
  const std::vector<double> x = io::read_rows<double>(pt, "Coordinates", 0, 33, 3);
  double lo = box[0], hi = 0, sum = 0;
  for (double c : x) lo = std::min(lo, c), hi = std::max(hi, c), sum += c;
  EXPECT_GT(lo, 0.0);
  EXPECT_LT(hi, box[0]);
  EXPECT_NEAR(sum / double(x.size()), box[0] / 2, 0.05 * box[0]);  // a Plummer sphere about the centre
  // ... and tessera's reader gives the run's own frame back: the centre of mass at the origin.
  const auto back = nt::read_snap<double>(dir / "out" / "snapshot_0000.h5");
  double com[3] = {0, 0, 0}, local_mass = 0;
  for (const auto& p : back.bodies.pos_mass) com[0] += p.w * p.x, com[1] += p.w * p.y, com[2] += p.w * p.z, local_mass += p.w;
  const double mass = comm::allreduce(context(), local_mass, comm::Op::sum);
  for (double& c : com) c = comm::allreduce(context(), c, comm::Op::sum) / mass;
  EXPECT_NEAR(com[0], 0.0, 1e-9);
  EXPECT_NEAR(com[1], 0.0, 1e-9);
  EXPECT_NEAR(com[2], 0.0, 1e-9);
  const io::Group params = f.root().open_group("Parameters");
  EXPECT_NE(io::read_attribute<std::string>(params, "tessera_deck").find("n = 33"), std::string::npos);
  // The default units: 1 kpc, 1e10 Msun and, G being 1, their velocity and time.
  const io::Group u = f.root().open_group("Units");
  const double L = io::read_attribute<double>(u, "Unit length in cgs (U_L)");
  const double M = io::read_attribute<double>(u, "Unit mass in cgs (U_M)");
  const double T = io::read_attribute<double>(u, "Unit time in cgs (U_t)");
  EXPECT_DOUBLE_EQ(L, kKpcInCm);
  EXPECT_DOUBLE_EQ(M, 1e10 * kSolarMassInG);
  EXPECT_NEAR(kGravityCgs * M * T * T / (L * L * L), 1.0, 1e-12);
  EXPECT_NEAR(io::read_attribute<double>(u, "UnitVelocity_in_cm_per_s"), L / T, 1e-9 * L / T);
  for (const char* group : {"RuntimePars", "Policy", "HydroScheme", "SubgridScheme", "InternalCodeUnits"})
    EXPECT_TRUE(f.root().exists(group)) << group;
}

TEST(NbodyRun, DifferentSeedsGiveDifferentBodies) {
  nt::TempDir dir;
  for (const char* seed : {"1", "2"}) {
    const auto deck = nt::load_deck(dir / "deck.toml",
                                      nt::deck_text(dir / seed, 0, std::string("[nbody]\nn = 20\nseed = ") + seed + "\n"));
    nt::run_deck(deck);
  }
  const auto a = nt::read_snap<float>(dir / "1" / "snapshot_0000.h5");
  const auto b = nt::read_snap<float>(dir / "2" / "snapshot_0000.h5");
  if (a.bodies.size() > 0) {
    EXPECT_NE(a.bodies.pos_mass[0].x, b.bodies.pos_mass[0].x);
  }
}
