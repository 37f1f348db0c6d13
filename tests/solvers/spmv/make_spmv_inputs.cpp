// Writes the HDF5 inputs the spmv command-line tests read: DIR/bad_row_ptr.h5, a 4 x 4 CSR
// matrix whose /row_ptr decreases at row 2 (0 2 5 3 6).
// Usage: make_spmv_inputs DIR (one process).
#include <cstdio>
#include <filesystem>
#include <vector>

#include "comm/errors.hpp"
#include "io/h5.hpp"

int main(int argc, char** argv) {
  tessera::comm::Context ctx(&argc, &argv);
  return tessera::comm::run_guarded(ctx, [&] {
    if (argc != 2) {
      std::fprintf(stderr, "usage: make_spmv_inputs DIR\n");
      return 2;
    }
    std::filesystem::create_directories(argv[1]);
    tessera::io::File f = tessera::io::File::create(ctx, std::filesystem::path(argv[1]) / "bad_row_ptr.h5");
    const tessera::io::Group root = f.root();
    const std::vector<std::int64_t> row_ptr{0, 2, 5, 3, 6}, col{0, 1, 1, 2, 3, 3};
    const std::vector<double> val{4, -1, 4, -1, 4, 4};
    tessera::io::write_1d<std::int64_t>(root, "row_ptr", row_ptr, 0, 5);
    tessera::io::write_1d<std::int64_t>(root, "col", col, 0, 6);
    tessera::io::write_1d<double>(root, "val", val, 0, 6);
    return 0;
  });
}
