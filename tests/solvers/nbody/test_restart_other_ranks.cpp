// Restart on another rank count (ctest fixture: Write on 3 ranks, then Read on 2): the run
// restarted from the 3-rank checkpoint ends within tolerance of the uninterrupted 3-rank run.
// Not bitwise: the force sums split into other blocks round differently (~1e-7 per step).
#include <gtest/gtest.h>

#include <cstdlib>

#include "io/checkpoint.hpp"
#include "tests/solvers/nbody/nbody_test_util.hpp"

using namespace tessera;
using namespace tessera::nbody;
using tessera::nbody::test::context;
namespace nt = tessera::nbody::test;

namespace {

std::filesystem::path shared_dir() {
  const char* d = std::getenv("TESSERA_NBODY_P2Q_DIR");
  return d ? std::filesystem::path(d) : std::filesystem::temp_directory_path() / "tessera_nbody_p2q";
}

deck::Deck the_deck(const std::filesystem::path& out) {
  if (context().is_root()) std::filesystem::create_directories(shared_dir());
  comm::barrier(context());
  return nt::load_deck(shared_dir() / (out.filename().string() + ".toml"),
                         nt::deck_text(out, 20,
                                         "[checkpoint]\nevery = 10\n[nbody]\nn = 301\nic = \"plummer\"\nseed = 11\n"
                                         "eps = 0.05\ndt = 0.01\n"));
}

}  // namespace

TEST(NbodyRestartOtherRanks, Write) {
  nt::run_deck(the_deck(shared_dir() / "written"));
  SUCCEED();
}

TEST(NbodyRestartOtherRanks, Read) {
  const auto written = shared_dir() / "written";
  ASSERT_TRUE(std::filesystem::exists(written / "snapshot_0000.h5")) << "run the Write test first (fixture)";
  const auto restarted = shared_dir() / "restarted";
  const auto summary =
      nt::run_deck(the_deck(restarted), io::checkpoint_path(written / "checkpoints", 10).string());
  EXPECT_EQ(summary.first_step, 10);
  const auto a = nt::read_snap<float>(written / "snapshot_0000.h5");
  const auto b = nt::read_snap<float>(restarted / "snapshot_0000.h5");
  ASSERT_EQ(a.bodies.size(), b.bodies.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.bodies.size(); ++i) {
    worst = std::max({worst, double(std::abs(a.bodies.pos_mass[i].x - b.bodies.pos_mass[i].x)),
                      double(std::abs(a.bodies.vel[i].y - b.bodies.vel[i].y))});
    EXPECT_EQ(a.bodies.ids[i], b.bodies.ids[i]);
  }
  EXPECT_LT(worst, 1e-5);  // positions and velocities are O(1)
}
