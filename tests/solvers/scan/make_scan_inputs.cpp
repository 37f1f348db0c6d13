// Writes the small HDF5 inputs the scan's command-line tests read: DIR/inputs.h5 with
//   /x     1000 int32 (random, fixed seed)      /u8    100 uint8 (an unsupported type)
//   /cube  5 x 5 x 4 float32 (not 1-D)
//   /cplx  10 complex128 (a compound {r, i} of doubles, as h5py writes complex numbers)
// Usage: make_scan_inputs DIR (one process).
#include <hdf5.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "comm/errors.hpp"
#include "io/h5.hpp"
#include "solvers/scan/generate.hpp"

static void write_datasets(tessera::comm::Context& ctx, const std::filesystem::path& path) {
  tessera::io::File f = tessera::io::File::create(ctx, path);
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
}

int main(int argc, char** argv) {
  tessera::comm::Context ctx(&argc, &argv);
  return tessera::comm::run_guarded(ctx, [&] {
    if (argc != 2) {
      std::fprintf(stderr, "usage: make_scan_inputs DIR\n");
      return 2;
    }
    std::filesystem::create_directories(argv[1]);
    const std::filesystem::path path = std::filesystem::path(argv[1]) / "inputs.h5";
    write_datasets(ctx, path);
    // Complex numbers have no io:: writer: the plain C API, on the closed file.
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t cplx = H5Tcreate(H5T_COMPOUND, 2 * sizeof(double));
    const hsize_t n = 10;
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const double values[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    bool ok = file >= 0 && cplx >= 0 && space >= 0 && H5Tinsert(cplx, "r", 0, H5T_NATIVE_DOUBLE) >= 0 &&
              H5Tinsert(cplx, "i", sizeof(double), H5T_NATIVE_DOUBLE) >= 0;
    const hid_t d = ok ? H5Dcreate2(file, "cplx", cplx, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = d >= 0 && H5Dwrite(d, cplx, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0;
    if (d >= 0) ok = H5Dclose(d) >= 0 && ok;
    if (space >= 0) H5Sclose(space);
    if (cplx >= 0) H5Tclose(cplx);
    if (file >= 0) ok = H5Fclose(file) >= 0 && ok;
    if (!ok) {
      std::fprintf(stderr, "make_scan_inputs: cannot write /cplx to %s\n", path.c_str());
      return 1;
    }
    return 0;
  });
}
