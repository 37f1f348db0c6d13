// shape = "voxels" (geometry/voxel_shape.cpp): which cell gets which voxel (a voxel size other
// than the cell's, an origin offset), an eps_r map, a rank's part read alone, every refusal;
// and the [[fdtd.volume]] components of the material grid.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/deck/deck.hpp"
#include "core/error.hpp"
#include "solvers/fdtd/geometry/voxel_shape.hpp"
#include "solvers/fdtd/material_quantity.hpp"
#include "solvers/fdtd/materials.hpp"
#include "solvers/fdtd/schema.hpp"

using namespace tessera;
using namespace tessera::fdtd;

namespace {

const std::filesystem::path kDir = std::filesystem::temp_directory_path() / "tessera_test_voxels";

// Writes `data` as dataset `name` of (dims z, y, x) and HDF5 type `type` (serial HDF5).
template <class T>
std::string write_h5(const std::string& file, const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
                     const std::vector<T>& data, hid_t mem_type) {
  std::filesystem::create_directories(kDir);
  const std::string path = (kDir / file).string();
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(f, 0);
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t d = H5Dcreate2(f, name.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Pclose(lcpl);
  EXPECT_GE(d, 0);
  EXPECT_GE(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
  return path;
}

// A 20 x 16 x 12 grid of 1 mm cells with vacuum, pec, glass (eps 4), resin (eps 2.5).
Model grid() {
  Model m;
  m.cells = {20, 16, 12};
  m.cell_size = {1e-3, 1e-3, 1e-3};
  m.dt = 0.9 * courant_limit(m.cell_size);
  m.materials = {{"vacuum", 1, 0, false, {}}, {"pec", 1, 0, true, {}}, {"glass", 4, 0, false, {}},
                 {"resin", 2.5, 0.2, false, {}}};
  return m;
}

Shape voxels(const std::string& path, const std::string& dataset, std::vector<int> materials) {
  Shape s;
  s.kind = ShapeKind::voxels;
  s.file.name = "fdtd.geometry[0]";
  s.file.where = "test.toml:7";
  s.file.path = path;
  s.file.dataset = dataset;
  s.file.origin = {1.3e-3, 0.4e-3, 2.1e-3};
  s.file.voxel_size = {0.7e-3, 1.3e-3, 0.9e-3};
  s.file.materials = std::move(materials);
  s.material = 3;  // resin: the host of an eps_r map
  return s;
}

const Box kAll{{0, 0, 0}, {20, 16, 12}};

std::string refusal(const Shape& s, const Box& region = kAll) {
  try {
    load_voxel_shape(s, grid(), region);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted " << s.file.path << " " << s.file.dataset;
  return {};
}

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

// 15 x 11 x 9 voxels (x y z): in [1.3, 11.8] x [0.4, 14.7] x [2.1, 10.2] mm.
constexpr hsize_t NX = 15, NY = 11, NZ = 9;

}  // namespace

TEST(FdtdVoxels, EachCellGetsTheVoxelOfItsCentre) {
  std::mt19937 rng(34);
  std::vector<std::int16_t> numbers(NX * NY * NZ);
  for (auto& v : numbers) v = static_cast<std::int16_t>(rng() % 3);
  const auto path = write_h5("numbers.h5", "grid/materials", H5T_STD_I16BE, {NZ, NY, NX}, numbers, H5T_NATIVE_INT16);
  const Shape s = voxels(path, "grid/materials", {0, 3, 2});  // 0 vacuum, 1 resin, 2 glass
  const Model m = grid();
  const LoadedShape loaded = load_voxel_shape(s, m, kAll);
  EXPECT_DOUBLE_EQ(loaded.lower[0], 1.3e-3);
  EXPECT_NEAR(loaded.upper[0], 1.3e-3 + 15 * 0.7e-3, 1e-15);
  EXPECT_NEAR(loaded.upper[1], 0.4e-3 + 11 * 1.3e-3, 1e-15);
  EXPECT_NEAR(loaded.upper[2], 2.1e-3 + 9 * 0.9e-3, 1e-15);
  int inside = 0, outside = 0;
  for (std::int64_t k = 0; k < 12; ++k)
    for (std::int64_t j = 0; j < 16; ++j)
      for (std::int64_t i = 0; i < 20; ++i) {
        const Point p{(i + 0.5) * 1e-3, (j + 0.5) * 1e-3, (k + 0.5) * 1e-3};
        // Independently: which voxel, by counting whole voxels below the point.
        const double u = (p[0] - 1.3e-3) / 0.7e-3, v = (p[1] - 0.4e-3) / 1.3e-3, w = (p[2] - 2.1e-3) / 0.9e-3;
        int want = -1;
        if (u >= 0 && u < NX && v >= 0 && v < NY && w >= 0 && w < NZ) {
          const auto vi = static_cast<std::size_t>(u), vj = static_cast<std::size_t>(v), vk = static_cast<std::size_t>(w);
          want = std::vector<int>{0, 3, 2}[static_cast<std::size_t>(numbers[(vk * NY + vj) * NX + vi])];
          ++inside;
        } else {
          ++outside;
        }
        ASSERT_EQ(loaded.data->material_at(p), want) << "cell " << i << " " << j << " " << k;
        EXPECT_TRUE(std::isnan(loaded.data->eps_r_at(p)));
      }
  EXPECT_GT(inside, 500);
  EXPECT_GT(outside, 500);
}

TEST(FdtdVoxels, ARankReadsOnlyItsPartAndAgreesWithTheWhole) {
  std::mt19937 rng(7);
  std::vector<std::uint8_t> numbers(NX * NY * NZ);
  for (auto& v : numbers) v = static_cast<std::uint8_t>(rng() % 4);
  const auto path = write_h5("part.h5", "materials", H5T_NATIVE_UINT8, {NZ, NY, NX}, numbers, H5T_NATIVE_UINT8);
  const Shape s = voxels(path, "materials", {0, 1, 2, 3});
  const Model m = grid();
  const LoadedShape whole = load_voxel_shape(s, m, kAll);
  const Box region{{3, 0, 5}, {11, 16, 12}};
  const LoadedShape part = load_voxel_shape(s, m, region);
  EXPECT_EQ(part.lower, whole.lower);
  EXPECT_EQ(part.upper, whole.upper);
  for (std::int64_t k = region.lo[2]; k < region.hi[2]; ++k)
    for (std::int64_t j = region.lo[1]; j < region.hi[1]; ++j)
      for (std::int64_t i = region.lo[0]; i < region.hi[0]; ++i) {
        const Point p{(i + 0.5) * 1e-3, (j + 0.5) * 1e-3, (k + 0.5) * 1e-3};
        ASSERT_EQ(part.data->material_at(p), whole.data->material_at(p));
      }
  // Far outside the part it loaded (cell 18 along x, region ends at 11): a bug, not an answer.
  EXPECT_THROW(part.data->material_at({9.2e-3, 5e-3, 2.5e-3}), std::logic_error);
}

TEST(FdtdVoxels, AnEpsMapGivesItsVoxelsValueOnTheHostMaterial) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> eps(1.0f, 12.0f);
  std::vector<float> values(NX * NY * NZ);
  for (auto& v : values) v = eps(rng);
  const auto path = write_h5("eps.h5", "eps_r", H5T_IEEE_F32LE, {NZ, NY, NX}, values, H5T_NATIVE_FLOAT);
  const LoadedShape loaded = load_voxel_shape(voxels(path, "eps_r", {}), grid(), kAll);
  for (std::int64_t k = 0; k < 12; ++k)
    for (std::int64_t i = 0; i < 20; ++i) {
      const Point p{(i + 0.5) * 1e-3, 7.5e-3, (k + 0.5) * 1e-3};
      const double u = (p[0] - 1.3e-3) / 0.7e-3, v = (p[1] - 0.4e-3) / 1.3e-3, w = (p[2] - 2.1e-3) / 0.9e-3;
      if (u >= 0 && u < NX && w >= 0 && w < NZ) {
        const auto at = (static_cast<std::size_t>(w) * NY + static_cast<std::size_t>(v)) * NX + static_cast<std::size_t>(u);
        EXPECT_EQ(loaded.data->material_at(p), 3);
        EXPECT_EQ(loaded.data->eps_r_at(p), double(values[at]));
      } else {
        EXPECT_EQ(loaded.data->material_at(p), -1);
        EXPECT_TRUE(std::isnan(loaded.data->eps_r_at(p)));
      }
    }
}

TEST(FdtdVoxels, PaintingUsesTheVoxels) {
  std::vector<std::int32_t> numbers(NX * NY * NZ, 1);
  const auto path = write_h5("paint.h5", "materials", H5T_NATIVE_INT32, {NZ, NY, NX}, numbers, H5T_NATIVE_INT32);
  Model m = grid();
  Shape s = voxels(path, "materials", {0, 2});
  LoadedShape loaded = load_voxel_shape(s, m, kAll);
  s.data = loaded.data;
  s.min = loaded.lower;
  s.max = loaded.upper;
  m.shapes.push_back(s);
  LocalDomain dom;
  dom.global = dom.n = m.cells;
  const Layout layout = make_layout(dom.n);
  std::vector<MaterialIndex> index(static_cast<std::size_t>(layout.elements()));
  paint_materials(m, dom, layout, index);
  EXPECT_EQ(index[static_cast<std::size_t>(layout.at(5, 5, 5))], 2);   // inside: glass
  EXPECT_EQ(index[static_cast<std::size_t>(layout.at(0, 5, 5))], 0);   // x = 0.5 mm < origin 1.3 mm
  EXPECT_EQ(index[static_cast<std::size_t>(layout.at(5, 5, 11))], 0);  // z = 11.5 mm > 10.2 mm
}

// Shapes compose in deck order, a voxel map like any other: a box listed after it takes the
// cells they share, and listed before it, keeps only its cells outside the map's extent.
TEST(FdtdVoxels, LaterShapesOverwriteAVoxelMapAndItOverwritesEarlierOnes) {
  std::vector<std::int32_t> numbers(NX * NY * NZ, 1);
  const auto path = write_h5("compose.h5", "materials", H5T_NATIVE_INT32, {NZ, NY, NX}, numbers, H5T_NATIVE_INT32);
  const auto paint = [&](bool box_last) {
    Model m = grid();
    Shape v = voxels(path, "materials", {0, 2});  // every voxel glass
    const LoadedShape loaded = load_voxel_shape(v, m, kAll);
    v.data = loaded.data;
    v.min = loaded.lower;
    v.max = loaded.upper;
    Shape box;
    box.kind = ShapeKind::box;
    box.material = 3;  // resin, over x in [5, 15) mm
    box.min = {5e-3, 0, 0};
    box.max = {15e-3, 16e-3, 12e-3};
    m.shapes = box_last ? std::vector<Shape>{v, box} : std::vector<Shape>{box, v};
    LocalDomain dom;
    dom.global = dom.n = m.cells;
    const Layout layout = make_layout(dom.n);
    std::vector<MaterialIndex> index(static_cast<std::size_t>(layout.elements()));
    paint_materials(m, dom, layout, index);
    return std::array<int, 3>{index[static_cast<std::size_t>(layout.at(8, 5, 5))],    // in both
                              index[static_cast<std::size_t>(layout.at(13, 5, 5))],   // the box alone
                              index[static_cast<std::size_t>(layout.at(3, 5, 5))]};   // the map alone
  };
  EXPECT_EQ(paint(true), (std::array<int, 3>{3, 3, 2}));
  EXPECT_EQ(paint(false), (std::array<int, 3>{2, 3, 2}));
}

TEST(FdtdVoxels, BadFilesAreRefusedNamingFileDatasetAndVoxel) {
  const std::vector<hsize_t> dims{NZ, NY, NX};
  std::vector<std::int32_t> numbers(NX * NY * NZ, 0);
  numbers[(4 * NY + 3) * NX + 2] = 5;  // voxel (2, 3, 4)
  const auto bad_number = write_h5("bad_number.h5", "materials", H5T_NATIVE_INT32, dims, numbers, H5T_NATIVE_INT32);
  std::string msg = refusal(voxels(bad_number, "materials", {0, 2, 3}));
  EXPECT_HAS(msg, "test.toml:7: fdtd.geometry[0]: " + bad_number + ", dataset \"materials\": material number 5 at voxel (x, y, z) = (2, 3, 4) (element [4][3][2]): 'materials' names 3 material(s), numbers 0 .. 2");
  numbers[(4 * NY + 3) * NX + 2] = -1;
  const auto negative = write_h5("negative.h5", "materials", H5T_NATIVE_INT32, dims, numbers, H5T_NATIVE_INT32);
  EXPECT_HAS(refusal(voxels(negative, "materials", {0, 2, 3})), "material number -1 at voxel (x, y, z) = (2, 3, 4)");

  std::vector<double> eps(NX * NY * NZ, 2.0);
  eps[(1 * NY + 2) * NX + 3] = std::nan("");
  const auto nan = write_h5("nan.h5", "eps", H5T_NATIVE_DOUBLE, dims, eps, H5T_NATIVE_DOUBLE);
  EXPECT_HAS(refusal(voxels(nan, "eps", {})), "eps_r = nan at voxel (x, y, z) = (3, 2, 1) (element [1][2][3]): eps_r must be finite and >= 1");
  eps[(1 * NY + 2) * NX + 3] = 0.5;
  const auto low = write_h5("low.h5", "eps", H5T_NATIVE_DOUBLE, dims, eps, H5T_NATIVE_DOUBLE);
  EXPECT_HAS(refusal(voxels(low, "eps", {})), "eps_r = 0.5 at voxel");
  eps[(1 * NY + 2) * NX + 3] = -3;
  const auto negative_eps = write_h5("negative_eps.h5", "eps", H5T_NATIVE_DOUBLE, dims, eps, H5T_NATIVE_DOUBLE);
  EXPECT_HAS(refusal(voxels(negative_eps, "eps", {})), "eps_r = -3 at voxel");

  // Kinds the keys do not fit.
  EXPECT_HAS(refusal(voxels(low, "eps", {0, 2})), "holds floats (eps_r per voxel): give the material whose eps_r it replaces with 'material'");
  EXPECT_HAS(refusal(voxels(bad_number, "materials", {})), "holds integers (material numbers): name their materials with 'materials");

  // Rank, type, emptiness, the file and the dataset.
  const auto flat = write_h5("flat.h5", "materials", H5T_NATIVE_INT32, {NY, NX}, std::vector<std::int32_t>(NX * NY),
                             H5T_NATIVE_INT32);
  EXPECT_HAS(refusal(voxels(flat, "materials", {0})), "dataset \"materials\": has 2 dimension(s) (11 x 15); a voxel map is 3D, indexed [z][y][x]");
  const auto empty = write_h5("empty.h5", "materials", H5T_NATIVE_INT32, {0, NY, NX}, std::vector<std::int32_t>(1),
                              H5T_NATIVE_INT32);
  EXPECT_HAS(refusal(voxels(empty, "materials", {0})), "is empty (0 x 11 x 15 voxels)");
  const hid_t str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, 4);
  const auto text = write_h5("text.h5", "materials", str, dims, std::vector<char>(NX * NY * NZ * 4, 'a'), str);
  H5Tclose(str);
  EXPECT_HAS(refusal(voxels(text, "materials", {0})), "dataset \"materials\": holds strings; a voxel map holds integers (material numbers) or floats (eps_r)");
  EXPECT_HAS(refusal(voxels(bad_number, "nothing/here", {0})), "dataset \"nothing/here\": no such dataset (no \"/nothing\" in the file)");
  EXPECT_HAS(refusal(voxels((kDir / "absent.h5").string(), "materials", {0})), "absent.h5: no such file");
  const std::string junk = (kDir / "junk.h5").string();
  { std::FILE* f = std::fopen(junk.c_str(), "w"); std::fputs("not hdf5\n", f); std::fclose(f); }
  EXPECT_HAS(refusal(voxels(junk, "materials", {0})), "junk.h5 is not a readable HDF5 file");
}

TEST(FdtdVoxels, VolumeComponentsNameTheMaterialGrid) {
  const std::string head = "[fdtd]\ncells = [8, 8, 8]\n[[fdtd.volume]]\nname = \"g\"\ncomponents = ";
  const auto load = [&](const std::string& comps) {
    return params_from_deck(deck::load_deck(fdtd::schema(), head + "\"" + comps + "\"\n", "test.toml"));
  };
  Model m = load("Ez, eps_x material sigma");
  ASSERT_EQ(m.volumes.size(), 1u);
  EXPECT_EQ(m.volumes[0].components, std::vector<int>{kEz});
  EXPECT_EQ(m.volumes[0].quantities, (std::vector<int>{kEpsX, kMaterialNumber, kSigma}));
  m = load("eps_y eps_z");
  EXPECT_TRUE(m.volumes[0].components.empty());
  EXPECT_EQ(m.volumes[0].quantities, (std::vector<int>{kEpsY, kEpsZ}));
  try {
    load("Ez eps_r");
    ADD_FAILURE() << "eps_r accepted";
  } catch (const InputError& e) {
    EXPECT_HAS(e.what(), "test.toml:5: unknown field component \"eps_r\" (components: Ex Ey Ez Hx Hy Hz; the material grid: eps_x eps_y eps_z sigma material); the permittivity is per E component: eps_x eps_y eps_z");
  }
  try {
    load("material Ex material");
    ADD_FAILURE() << "a repeat accepted";
  } catch (const InputError& e) {
    EXPECT_HAS(e.what(), "component material is listed twice");
  }
}
