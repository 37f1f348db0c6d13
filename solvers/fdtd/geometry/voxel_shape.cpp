#include "solvers/fdtd/geometry/voxel_shape.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "core/error.hpp"
#include "io/h5_error.hpp"
#include "io/h5_handle.hpp"

namespace tessera::fdtd {
namespace {

// A rank reads its part of the dataset in slabs of z planes of at most this many voxels, so
// the int32/double staging buffer stays small whatever the grid.
constexpr std::int64_t kSlabVoxels = std::int64_t{1} << 22;

// What one rank holds of a voxel map: voxels lo .. hi (x y z, half-open) of a dims grid whose
// voxel (i, j, k) covers origin + [i, i + 1) size[0] etc.
class VoxelData final : public ShapeData {
 public:
  Point origin{}, size{};
  Index3 dims{}, lo{}, hi{};
  std::vector<MaterialIndex> material;  // material numbers, already Model indices
  int host = -1;                        // an eps_r map: the shape's material
  std::vector<double> eps;              // an eps_r map: per voxel

  int material_at(const Point& p) const override {
    Index3 v;
    if (!voxel(p, v)) return -1;
    return host >= 0 ? host : material[slot(v)];
  }
  double eps_r_at(const Point& p) const override {
    Index3 v;
    if (host < 0 || !voxel(p, v)) return std::numeric_limits<double>::quiet_NaN();
    return eps[slot(v)];
  }

 private:
  // The voxel holding p, false outside the map.
  bool voxel(const Point& p, Index3& v) const {
    for (int a = 0; a < 3; ++a) {
      const double f = std::floor((p[a] - origin[a]) / size[a]);
      if (!(f >= 0 && f < double(dims[a]))) return false;
      v[a] = static_cast<std::int64_t>(f);
    }
    return true;
  }
  std::size_t slot(const Index3& v) const {
    for (int a = 0; a < 3; ++a)
      if (v[a] < lo[a] || v[a] >= hi[a])
        throw std::logic_error("voxel map queried outside the part this rank loaded (geometry_region)");
    return static_cast<std::size_t>(((v[2] - lo[2]) * (hi[1] - lo[1]) + (v[1] - lo[1])) * (hi[0] - lo[0]) +
                                    (v[0] - lo[0]));
  }
};

// Messages name the deck line, the shape, the file and the dataset.
struct Where {
  const Shape& s;
  std::string prefix() const {
    return fmt::format("{}: {}: {}, dataset \"{}\"", s.file.where, s.file.name, s.file.path, s.file.dataset);
  }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(prefix() + ": " + what); }
  [[noreturn]] void fail_h5(const std::string& action) const {
    throw io::H5Error(fmt::format("{}: HDF5 could not {}: {}", prefix(), action, io::detail::take_error_stack()));
  }
  hid_t check(hid_t id, const std::string& action) const {
    if (id < 0) fail_h5(action);
    return id;
  }
  void check(herr_t rc, const std::string& action) const {
    if (rc < 0) fail_h5(action);
  }
};

io::Handle open_file(const Where& w) {
  const std::string& path = w.s.file.path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(fmt::format("{}: {}: {}: no such file", w.s.file.where, w.s.file.name, path));
  // Each rank opens the file alone (no MPI-IO): ranks read different parts, and one rank's
  // failure must not leave the others in a collective call (load_geometry runs in comm::agree).
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0)
    throw InputError(fmt::format("{}: {}: {} is not a readable HDF5 file (HDF5: {})", w.s.file.where, w.s.file.name,
                                 path, io::detail::take_error_stack()));
  return io::Handle(id);
}

io::Handle open_dataset(const Where& w, hid_t file) {
  std::string name = w.s.file.dataset;
  if (name.empty()) w.fail("the dataset name is empty");
  if (name.front() != '/') name.insert(name.begin(), '/');
  // Every link along the path must exist before H5Oopen may be asked (it fails noisily).
  for (std::size_t at = name.find('/', 1);; at = name.find('/', at + 1)) {
    const std::string part = name.substr(0, at);
    const htri_t e = H5Lexists(file, part.c_str(), H5P_DEFAULT);
    if (e < 0) w.fail_h5("look up " + part);
    if (e == 0) w.fail(fmt::format("no such dataset (no \"{}\" in the file)", part));
    if (at == std::string::npos) break;
  }
  io::Handle obj(w.check(H5Oopen(file, name.c_str(), H5P_DEFAULT), "open the dataset"));
  if (H5Iget_type(obj) != H5I_DATASET) w.fail("is a group, not a dataset");
  return obj;
}

const char* class_name(H5T_class_t c) {
  switch (c) {
    case H5T_STRING: return "strings";
    case H5T_COMPOUND: return "a compound type";
    case H5T_ENUM: return "an enum type";
    case H5T_ARRAY: return "an array type";
    case H5T_VLEN: return "variable-length sequences";
    case H5T_OPAQUE: return "an opaque type";
    case H5T_BITFIELD: return "a bitfield type";
    case H5T_REFERENCE: return "references";
    case H5T_TIME: return "a time type";
    default: return "an unknown type";
  }
}

// Voxels lo .. hi (x y z) of the file covering the global cells of `region` and one voxel more
// each side (points on the region's faces, rounding), clipped to the map.
void loaded_range(const Shape& s, const Model& m, const Box& region, const Index3& dims, Index3& lo, Index3& hi) {
  for (int a = 0; a < 3; ++a) {
    const double a0 = std::floor((region.lo[a] * m.cell_size[a] - s.file.origin[a]) / s.file.voxel_size[a]) - 1;
    const double a1 = std::floor((region.hi[a] * m.cell_size[a] - s.file.origin[a]) / s.file.voxel_size[a]) + 2;
    lo[a] = static_cast<std::int64_t>(std::clamp(a0, 0.0, double(dims[a])));
    hi[a] = static_cast<std::int64_t>(std::clamp(a1, 0.0, double(dims[a])));
    if (hi[a] <= lo[a]) {
      lo = hi = {0, 0, 0};
      return;
    }
  }
}

// Reads voxels lo .. hi (z planes z0 .. z1) of the dataset as `mem_type` into `out`.
void read_slab(const Where& w, hid_t dset, hid_t mem_type, const Index3& lo, const Index3& hi, std::int64_t z0,
               std::int64_t z1, void* out) {
  io::Handle space(w.check(H5Dget_space(dset), "read the dataspace"));
  const hsize_t start[3] = {hsize_t(z0), hsize_t(lo[1]), hsize_t(lo[0])};
  const hsize_t count[3] = {hsize_t(z1 - z0), hsize_t(hi[1] - lo[1]), hsize_t(hi[0] - lo[0])};
  w.check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr), "select the voxels to read");
  io::Handle mem(w.check(H5Screate_simple(3, count, nullptr), "create the memory space"));
  w.check(H5Dread(dset, mem_type, mem, space, H5P_DEFAULT, out),
          fmt::format("read voxels [{}:{}][{}:{}][{}:{}]", z0, z1, lo[1], hi[1], lo[0], hi[0]));
}

std::string voxel_name(std::int64_t i, std::int64_t j, std::int64_t k) {
  return fmt::format("voxel (x, y, z) = ({}, {}, {}) (element [{}][{}][{}])", i, j, k, k, j, i);
}

}  // namespace

LoadedShape load_voxel_shape(const Shape& s, const Model& m, const Box& region) {
  io::detail::init_hdf5();
  const Where w{s};
  const io::Handle file = open_file(w);
  const io::Handle dset = open_dataset(w, file);

  io::Handle type(w.check(H5Dget_type(dset), "read the type"));
  const H5T_class_t cls = H5Tget_class(type);
  if (cls == H5T_NO_CLASS) w.fail_h5("classify the type");
  if (cls != H5T_INTEGER && cls != H5T_FLOAT)
    w.fail(fmt::format("holds {}; a voxel map holds integers (material numbers) or floats (eps_r)", class_name(cls)));
  const bool numbers = cls == H5T_INTEGER;
  if (numbers && s.file.materials.empty())
    w.fail("holds integers (material numbers): name their materials with 'materials = \"name0 name1 ...\"' instead "
           "of 'material'");
  if (!numbers && !s.file.materials.empty())
    w.fail("holds floats (eps_r per voxel): give the material whose eps_r it replaces with 'material', not "
           "'materials' (that is for integer material numbers)");

  io::Handle space(w.check(H5Dget_space(dset), "read the dataspace"));
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) w.fail_h5("read the rank");
  hsize_t file_dims[3] = {0, 0, 0};
  if (rank != 3) {
    std::vector<hsize_t> d(static_cast<std::size_t>(std::max(rank, 0)));
    if (rank > 0 && H5Sget_simple_extent_dims(space, d.data(), nullptr) < 0) w.fail_h5("read the extent");
    w.fail(fmt::format("has {} dimension(s) ({}); a voxel map is 3D, indexed [z][y][x]", rank,
                       rank == 0 ? "a scalar" : fmt::format("{}", fmt::join(d, " x "))));
  }
  w.check(H5Sget_simple_extent_dims(space, file_dims, nullptr), "read the extent");
  auto data = std::make_shared<VoxelData>();
  data->dims = {std::int64_t(file_dims[2]), std::int64_t(file_dims[1]), std::int64_t(file_dims[0])};
  if (data->dims[0] * data->dims[1] * data->dims[2] == 0)
    w.fail(fmt::format("is empty ({} x {} x {} voxels)", file_dims[0], file_dims[1], file_dims[2]));
  data->origin = s.file.origin;
  data->size = s.file.voxel_size;
  loaded_range(s, m, region, data->dims, data->lo, data->hi);
  const Index3 lo = data->lo, hi = data->hi;
  const std::int64_t plane = (hi[0] - lo[0]) * (hi[1] - lo[1]);
  const std::size_t total = static_cast<std::size_t>(plane * (hi[2] - lo[2]));
  if (numbers) data->material.resize(total);
  else {
    data->host = s.material;
    data->eps.resize(total);
  }
  // z slabs: integers staged as int64 (HDF5 converts any integer type; a uint64 beyond int64
  // is clipped to its maximum, refused below all the same), checked, stored as the Model's
  // material indices; floats read as double straight into place.
  const std::int64_t planes = std::max<std::int64_t>(1, kSlabVoxels / std::max<std::int64_t>(plane, 1));
  std::vector<std::int64_t> staged;
  const auto n_names = static_cast<std::int64_t>(s.file.materials.size());
  for (std::int64_t z0 = lo[2]; z0 < hi[2]; z0 += planes) {
    const std::int64_t z1 = std::min(hi[2], z0 + planes);
    const std::size_t base = static_cast<std::size_t>((z0 - lo[2]) * plane);
    const std::size_t n = static_cast<std::size_t>((z1 - z0) * plane);
    if (!numbers) {
      read_slab(w, dset, H5T_NATIVE_DOUBLE, lo, hi, z0, z1, data->eps.data() + base);
      for (std::size_t e = 0; e < n; ++e) {
        const double v = data->eps[base + e];
        // A passive, non-dispersive medium has eps_r >= 1; below courant^2 the E update
        // would also be unstable at tessera's vacuum time step.
        if (!(std::isfinite(v) && v >= 1)) {
          const auto at = static_cast<std::int64_t>(e);
          w.fail(fmt::format("eps_r = {:g} at {}: eps_r must be finite and >= 1", v,
                             voxel_name(lo[0] + at % (hi[0] - lo[0]), lo[1] + at / (hi[0] - lo[0]) % (hi[1] - lo[1]),
                                        z0 + at / plane)));
        }
      }
      continue;
    }
    staged.resize(n);
    read_slab(w, dset, H5T_NATIVE_INT64, lo, hi, z0, z1, staged.data());
    for (std::size_t e = 0; e < n; ++e) {
      const std::int64_t v = staged[e];
      if (v < 0 || v >= n_names) {
        const auto at = static_cast<std::int64_t>(e);
        w.fail(fmt::format("material number {} at {}: 'materials' names {} material(s), numbers 0 .. {}", v,
                           voxel_name(lo[0] + at % (hi[0] - lo[0]), lo[1] + at / (hi[0] - lo[0]) % (hi[1] - lo[1]),
                                      z0 + at / plane),
                           n_names, n_names - 1));
      }
      data->material[base + e] = static_cast<MaterialIndex>(s.file.materials[static_cast<std::size_t>(v)]);
    }
  }
  LoadedShape out;
  for (int a = 0; a < 3; ++a) {
    out.lower[a] = s.file.origin[a];
    out.upper[a] = s.file.origin[a] + double(data->dims[a]) * s.file.voxel_size[a];
  }
  out.data = std::move(data);
  return out;
}

}  // namespace tessera::fdtd
