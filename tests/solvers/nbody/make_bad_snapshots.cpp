// Writes the broken snapshots the command-line tests feed to ic = "file":
//   no_velocities.h5  /Header and /PartType1/Coordinates only
//   no_masses.h5      Coordinates and Velocities, but no Masses and MassTable all zero
// Usage: nbody_make_bad_snapshots DIR
#include <cstdio>
#include <filesystem>
#include <vector>

#include "comm/context.hpp"
#include "comm/errors.hpp"
#include "io/h5.hpp"
#include "solvers/nbody/h5_rows.hpp"

using namespace tessera;

namespace {

void write(comm::Context& ctx, const std::filesystem::path& file, bool velocities) {
  io::File f = io::File::create(ctx, file);
  {
    const io::Group root = f.root();
    const io::Group h = root.create_group("Header");
    io::write_attribute(h, "MassTable", std::vector<double>(6, 0.0));
    io::write_attribute(h, "Time", 0.0);
    const io::Group pt = root.create_group("PartType1");
    const std::vector<float> x{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    nbody::write_rows3<float>(pt, "Coordinates", x, 0, 4);
    if (velocities) nbody::write_rows3<float>(pt, "Velocities", x, 0, 4);
  }
  f.close();
}

}  // namespace

int main(int argc, char** argv) {
  comm::Context ctx(&argc, &argv);
  return comm::run_guarded(ctx, [&] {
    if (argc != 2) {
      std::fprintf(stderr, "usage: nbody_make_bad_snapshots DIR\n");
      return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    write(ctx, dir / "no_velocities.h5", false);
    write(ctx, dir / "no_masses.h5", true);
    return 0;
  });
}
