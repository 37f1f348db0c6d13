// Writes the small HDF5 inputs the scan's command-line tests read: DIR/inputs.h5 with
//   /x     1000 int32 (random, fixed seed)      /u8    100 uint8 (an unsupported type)
//   /cube  5 x 5 x 4 float32 (not 1-D)
// Usage: make_scan_inputs DIR (one process).
#include <cstdio>
#include <filesystem>
#include <vector>

#include "comm/errors.hpp"
#include "io/h5.hpp"
#include "solvers/scan/generate.hpp"

int main(int argc, char** argv) {
  tessera::comm::Context ctx(&argc, &argv);
  return tessera::comm::run_guarded(ctx, [&] {
    if (argc != 2) {
      std::fprintf(stderr, "usage: make_scan_inputs DIR\n");
      return 2;
    }
    std::filesystem::create_directories(argv[1]);
    tessera::io::File f = tessera::io::File::create(ctx, std::filesystem::path(argv[1]) / "inputs.h5");
    const tessera::io::Group root = f.root();
    std::vector<std::int32_t> x(1000);
    tessera::scan::Generator g;
    g.seed = 77;
    tessera::scan::generate_values(x.data(), 1000, 0, g);
    tessera::io::write_1d<std::int32_t>(root, "x", x, 0, 1000);
    std::vector<std::uint8_t> u8(100, 3);
    tessera::io::write_1d<std::uint8_t>(root, "u8", u8, 0, 100);
    const tessera::io::Box3 box{{4, 5, 5}, {0, 0, 0}, {4, 5, 5}};
    std::vector<float> cube(100, 1.0f);
    tessera::io::write_3d<float>(root, "cube", cube, box, tessera::io::Strided3::dense(box.size));
    return 0;
  });
}
