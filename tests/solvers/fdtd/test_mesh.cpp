// shape = "mesh": STL reading and its refusals, the transform, and the ray-parity voxeliser
// against analytic shapes (a sphere, and meshes whose edges and corners lie on cell-centre rays),
// painted through load_geometry and paint_materials as a run paints them. Runs on 1 and 3 ranks:
// load_geometry reads each file on rank 0 and broadcasts it, so on 3 ranks every case (the
// refusals too) goes through the broadcast and its agreement.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "mesh_test_util.hpp"
#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/geometry/load.hpp"
#include "solvers/fdtd/geometry/mesh_broadcast.hpp"
#include "solvers/fdtd/geometry/mesh_shape.hpp"
#include "solvers/fdtd/geometry/shape_data.hpp"
#include "solvers/fdtd/materials.hpp"
#include "solvers/fdtd/params.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using namespace tessera::fdtd;
using namespace tessera::fdtd::test;

namespace {

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tessera_test_mesh_{}", getpid());
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// n^3 cells of d, vacuum and glass (material 1).
Model glass_grid(Index3 n, double d) {
  Model m;
  m.cells = n;
  m.cell_size = {d, d, d};
  m.materials = {{"vacuum", 1, 0, false, {}}, {"glass", 4, 0, false, {}}};
  return m;
}

Shape mesh_shape(const std::string& path) {
  Shape s;
  s.kind = ShapeKind::mesh;
  s.material = 1;
  s.file.path = path;
  s.file.name = "fdtd.geometry[0]";
  s.file.where = "test.toml:7";
  return s;
}

LocalDomain whole(const Model& m) {
  LocalDomain dom;
  dom.global = m.cells;
  dom.n = m.cells;
  return dom;
}

// The material of each of dom's cells (x fastest), painted as a run paints them, the model's
// file-backed shapes loaded for dom first.
std::vector<int> painted(Model m, const LocalDomain& dom) {
  load_geometry(tessera::test::context(), m, dom);
  const Layout layout = make_layout(dom.n);
  std::vector<MaterialIndex> index(static_cast<std::size_t>(layout.elements()));
  paint_materials(m, dom, layout, index);
  std::vector<int> out;
  for (std::int64_t k = 0; k < dom.n[2]; ++k)
    for (std::int64_t j = 0; j < dom.n[1]; ++j)
      for (std::int64_t i = 0; i < dom.n[0]; ++i) out.push_back(index[static_cast<std::size_t>(layout.at(i, j, k))]);
  return out;
}

std::string load_error(const std::vector<Triangle>* tris, const std::string& path, bool binary = true) {
  if (tris) {
    if (binary) write_binary_stl(path, *tris);
    else write_ascii_stl(path, *tris);
  }
  Model m = glass_grid({8, 8, 8}, 1e-3);
  m.shapes.push_back(mesh_shape(path));
  try {
    load_geometry(tessera::test::context(), m, whole(m));
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " was accepted";
  return {};
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

}  // namespace

// The same sphere from an STL file (an icosphere of 20480 triangles, corners on the sphere) and
// as the built-in shape: every cell whose centre is more than one cell from the surface agrees;
// and painting 2 x 2 x 2 parts separately (each loading only its triangles) gives the same
// cells bitwise as painting the whole grid at once.
TEST(FdtdMesh, SphereMatchesBuiltInSphere) {
  const double d = 1e-3, r = 12.3e-3;
  const Vertex c{20.3e-3, 19.7e-3, 20.1e-3};
  const std::string path = scratch("sphere.stl");
  write_binary_stl(path, icosphere(c, r, 5));
  Model mesh = glass_grid({40, 40, 40}, d);
  mesh.shapes.push_back(mesh_shape(path));
  Model analytic = glass_grid({40, 40, 40}, d);
  Shape sphere;
  sphere.kind = ShapeKind::sphere;
  sphere.material = 1;
  sphere.center = c;
  sphere.radius = r;
  analytic.shapes.push_back(sphere);
  const auto a = painted(analytic, whole(analytic)), b = painted(mesh, whole(mesh));
  std::size_t inside = 0, differ = 0;
  for (std::int64_t k = 0; k < 40; ++k)
    for (std::int64_t j = 0; j < 40; ++j)
      for (std::int64_t i = 0; i < 40; ++i) {
        const std::size_t n = static_cast<std::size_t>(i + 40 * (j + 40 * k));
        inside += b[n] == 1;
        if (a[n] == b[n]) continue;
        ++differ;
        const double dist = std::hypot((i + 0.5) * d - c[0], (j + 0.5) * d - c[1], (k + 0.5) * d - c[2]);
        EXPECT_LE(std::abs(dist - r), d) << "cell " << i << " " << j << " " << k;
      }
  EXPECT_GT(inside, 7000u);  // 4/3 pi 12.3^3 = 7795 cells
  EXPECT_LT(differ, 200u);
  // 2 x 2 x 2 parts of 20 cells, as 8 ranks paint them.
  for (int part = 0; part < 8; ++part) {
    LocalDomain dom;
    dom.global = mesh.cells;
    dom.n = {20, 20, 20};
    dom.offset = {20 * (part & 1), 20 * (part >> 1 & 1), 20 * (part >> 2)};
    const auto p = painted(mesh, dom);
    for (std::int64_t k = 0; k < 20; ++k)
      for (std::int64_t j = 0; j < 20; ++j)
        for (std::int64_t i = 0; i < 20; ++i)
          ASSERT_EQ(p[static_cast<std::size_t>(i + 20 * (j + 20 * k))],
                    b[static_cast<std::size_t>(dom.offset[0] + i + 40 * (dom.offset[1] + j + 40 * (dom.offset[2] + k)))])
              << "part " << part << " cell " << i << " " << j << " " << k;
  }
}

// Meshes whose corners sit on cell centres, so that rays along x run exactly through corners,
// along edges and inside faces seen edge-on: an octahedron (corners on rays, edges on rays'
// diagonals) and a box (faces through rows of centres). Every centre strictly inside or outside
// gets the analytic answer; material_at_centres equals material_at at every centre.
void check_on_rays(double d) {
  const Index3 n{24, 22, 20};
  const auto at = [&](std::int64_t i) { return (i + 0.5) * d; };
  struct Case {
    const char* name;
    std::vector<Triangle> tris;
    std::function<int(std::int64_t, std::int64_t, std::int64_t)> truth;  // 1 inside, 0 outside, -1 on the surface
  };
  std::vector<Case> cases;
  // Octahedron centred on cell (11, 10, 9), half-diagonals 7, 6, 5 cells (corners at cell centres).
  cases.push_back({"octahedron", octahedron({at(4), at(4), at(4)}, {at(11), at(10), at(9)},
                                            {at(18), at(16), at(14)}),
                   [](std::int64_t i, std::int64_t j, std::int64_t k) {
                     const double s = std::abs(i - 11) / 7.0 + std::abs(j - 10) / 6.0 + std::abs(k - 9) / 5.0;
                     return std::abs(s - 1) < 1e-12 ? -1 : s < 1 ? 1 : 0;
                   }});
  // A regular octahedron (equal half-diagonals 6): its edges run exactly along the diagonals
  // of the rows' grid.
  cases.push_back({"regular octahedron", octahedron({at(5), at(4), at(3)}, {at(11), at(10), at(9)},
                                                    {at(17), at(16), at(15)}),
                   [](std::int64_t i, std::int64_t j, std::int64_t k) {
                     const std::int64_t s = std::abs(i - 11) + std::abs(j - 10) + std::abs(k - 9);
                     return s == 6 ? -1 : s < 6 ? 1 : 0;
                   }});
  cases.push_back({"box", box_mesh({at(3), at(5), at(2)}, {at(17), at(15), at(12)}),
                   [](std::int64_t i, std::int64_t j, std::int64_t k) {
                     const bool in = i > 3 && i < 17 && j > 5 && j < 15 && k > 2 && k < 12;
                     const bool out = i < 3 || i > 17 || j < 5 || j > 15 || k < 2 || k > 12;
                     return in ? 1 : out ? 0 : -1;
                   }});
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{}, d = {:g}", c.name, d));
    const std::string path = scratch("on_rays.stl");
    write_ascii_stl(path, c.tris);  // ASCII with 17 digits: the corners read back bitwise
    Model m = glass_grid(n, d);
    m.shapes.push_back(mesh_shape(path));
    const LocalDomain dom = whole(m);
    const auto cells = painted(m, dom);
    std::size_t checked = 0;
    for (std::int64_t k = 0; k < n[2]; ++k)
      for (std::int64_t j = 0; j < n[1]; ++j)
        for (std::int64_t i = 0; i < n[0]; ++i) {
          const int want = c.truth(i, j, k);
          if (want < 0) continue;
          ++checked;
          ASSERT_EQ(cells[static_cast<std::size_t>(i + n[0] * (j + n[1] * k))], want) << "cell " << i << " " << j << " " << k;
        }
    EXPECT_GT(checked, 0u);
    // Row path against point queries, over the whole region.
    load_geometry(tessera::test::context(), m, dom);
    const ShapeData& data = *m.shapes[0].data;
    const Box all = dom.global_box();
    std::vector<int> rows(static_cast<std::size_t>(all.cells()));
    data.material_at_centres(all, m.cell_size, rows);
    std::size_t idx = 0;
    for (std::int64_t k = 0; k < n[2]; ++k)
      for (std::int64_t j = 0; j < n[1]; ++j)
        for (std::int64_t i = 0; i < n[0]; ++i, ++idx)
          ASSERT_EQ(rows[idx], data.material_at({(i + 0.5) * d, (j + 0.5) * d, (k + 0.5) * d}))
              << "cell " << i << " " << j << " " << k;
  }
}

TEST(FdtdMesh, RaysThroughEdgesAndCorners) {
  check_on_rays(1.0 / 1024);  // every coordinate and product exact: edge functions exactly 0
  check_on_rays(1e-3);        // rounded: the shared edges must still agree
}

// Rotation R = Rz Ry Rx (x first), after the scale, before the translation: a 2 x 1 x 3 mm box
// (file in mm) rotated by 90 degrees about x then about y maps (x, y, z) to (y, -z, -x).
TEST(FdtdMesh, TransformPlacesTheMesh) {
  const std::string path = scratch("brick.stl");
  write_binary_stl(path, box_mesh({0, 0, 0}, {2, 1, 3}));
  Model m = glass_grid({20, 20, 20}, 1e-3);
  Shape s = mesh_shape(path);
  s.file.scale = 1e-3;
  s.file.rotate = {90, 90, 0};
  s.file.translate = {10e-3, 10e-3, 10e-3};
  m.shapes.push_back(s);
  load_geometry(tessera::test::context(), m, whole(m));
  const Vertex lower{10e-3, 7e-3, 8e-3}, upper{11e-3, 10e-3, 10e-3};
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(m.shapes[0].min[a], lower[a], 1e-15) << "axis " << a;
    EXPECT_NEAR(m.shapes[0].max[a], upper[a], 1e-15) << "axis " << a;
  }
  const auto cells = painted(m, whole(m));
  std::size_t inside = 0;
  for (std::int64_t k = 0; k < 20; ++k)
    for (std::int64_t j = 0; j < 20; ++j)
      for (std::int64_t i = 0; i < 20; ++i) {
        const bool want = i == 10 && j >= 7 && j < 10 && k >= 8 && k < 10;
        inside += want;
        EXPECT_EQ(cells[static_cast<std::size_t>(i + 20 * (j + 20 * k))], want ? 1 : 0) << i << " " << j << " " << k;
      }
  EXPECT_EQ(inside, 6u);
  // A general angle: the bounds of the rotated corners.
  m.shapes[0].file.rotate = {0, 0, 30};
  m.shapes[0].file.translate = {5e-3, 5e-3, 5e-3};
  load_geometry(tessera::test::context(), m, whole(m));
  const double c = std::cos(kPi / 6), sn = std::sin(kPi / 6);
  EXPECT_NEAR(m.shapes[0].min[0], 5e-3 - 1e-3 * sn, 1e-15);
  EXPECT_NEAR(m.shapes[0].max[0], 5e-3 + 2e-3 * c, 1e-15);
  EXPECT_NEAR(m.shapes[0].max[1], 5e-3 + 2e-3 * sn + 1e-3 * c, 1e-15);
}

TEST(FdtdMesh, RefusesBadFiles) {
  const std::vector<Triangle> sphere = icosphere({4e-3, 4e-3, 4e-3}, 2e-3, 1);
  // Not STL: text that does not start with 'solid', and a longer binary-looking file.
  write_bytes(scratch("text.stl"), "hello, this is not a mesh\n");
  EXPECT_HAS(load_error(nullptr, scratch("text.stl")), "test.toml:7: fdtd.geometry[0]: '");
  EXPECT_HAS(load_error(nullptr, scratch("text.stl")), "text.stl': is not an STL file: it does not start with 'solid'");
  write_bytes(scratch("big.stl"), std::string(200, 'x'));
  EXPECT_HAS(load_error(nullptr, scratch("big.stl")), "is not an STL file, or a truncated one: it is not ASCII STL");
  // Truncated binary: the header's count against the size.
  write_binary_stl(scratch("cut.stl"), sphere);
  std::filesystem::resize_file(scratch("cut.stl"), 84 + 50 * 30 + 7);
  EXPECT_HAS(load_error(nullptr, scratch("cut.stl")),
             "as a binary STL its header announces 80 triangles, which take 84 + 50 x 80 = 4084 bytes; the file has "
             "1591 bytes (30 complete triangles)");
  // Truncated ASCII.
  write_ascii_stl(scratch("cut_ascii.stl"), sphere);
  {
    std::string text;
    std::ifstream in(scratch("cut_ascii.stl"));
    text.assign(std::istreambuf_iterator<char>(in), {});
    write_bytes(scratch("cut_ascii.stl"), text.substr(0, text.size() / 2));
  }
  EXPECT_HAS(load_error(nullptr, scratch("cut_ascii.stl")), "truncated ASCII STL: the file ends inside facet");
  // Empty: binary and ASCII.
  const std::vector<Triangle> none;
  EXPECT_HAS(load_error(&none, scratch("empty.stl")), "holds no triangles");
  EXPECT_HAS(load_error(&none, scratch("empty_ascii.stl"), false), "holds no triangles");
  // NaN and infinite corners, named by triangle.
  std::vector<Triangle> bad = sphere;
  bad[17][1][2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_HAS(load_error(&bad, scratch("nan.stl")), "triangle 17 (counted from 0) has a vertex (");
  EXPECT_HAS(load_error(&bad, scratch("nan_ascii.stl"), false), "triangle 17 (counted from 0)");
  bad = sphere;
  bad[3][0][0] = std::numeric_limits<double>::infinity();
  EXPECT_HAS(load_error(&bad, scratch("inf.stl")), "triangle 3 (counted from 0) has a vertex (inf,");
  // Open: one triangle removed leaves three open edges; a gap by moving one corner, 2 more.
  std::vector<Triangle> open = sphere;
  open.erase(open.begin() + 5);
  const std::string e = load_error(&open, scratch("open.stl"));
  EXPECT_HAS(e, "is not a closed surface: 3 open edge(s) (used by one triangle) and 0 edge(s) used by more than two");
  EXPECT_HAS(e, "e.g. the edge (");
  // Two spheres sharing nothing are closed; one triangle duplicated makes 3 edges used thrice.
  std::vector<Triangle> twice = sphere;
  twice.push_back(sphere[0]);
  EXPECT_HAS(load_error(&twice, scratch("twice.stl")), "0 open edge(s) (used by one triangle) and 3 edge(s) used by more");
  // Outside the grid (load.cpp, from the bounds the loader returns).
  const std::vector<Triangle> far = icosphere({7e-3, 4e-3, 4e-3}, 2e-3, 1);
  EXPECT_HAS(load_error(&far, scratch("far.stl")), "lies outside the domain: it spans");
  std::filesystem::remove_all(std::filesystem::path(scratch("x")).parent_path());
}

// A closed file read as binary although its header starts with "solid"; the same mesh in ASCII
// gives the same cells (binary stores floats: corners in mm, representable, scaled to metres).
TEST(FdtdMesh, BinaryWithSolidHeaderAndAscii) {
  const std::vector<Triangle> tris = box_mesh({2, 2, 2}, {5.25, 4.25, 6});
  std::vector<int> cells[2];
  for (int ascii = 0; ascii < 2; ++ascii) {
    const std::string path = scratch(ascii ? "brick_ascii.stl" : "brick_binary.stl");
    if (ascii) write_ascii_stl(path, tris);
    else write_binary_stl(path, tris);
    Model m = glass_grid({8, 8, 8}, 1e-3);
    m.shapes.push_back(mesh_shape(path));
    m.shapes[0].file.scale = 1e-3;
    cells[ascii] = painted(m, whole(m));
  }
  EXPECT_EQ(cells[0], cells[1]);
  std::size_t inside = 0;
  for (int v : cells[0]) inside += v == 1;
  EXPECT_EQ(inside, 3u * 2u * 4u);
}

// Rank 0 reads and places the mesh, every rank receives it: each rank ends with bitwise the
// triangles it gets by reading the same file itself (binary and ASCII, rotated and scaled),
// also when the broadcast is cut into chunks of 7 triangles (a last, partial chunk).
TEST(FdtdMesh, BroadcastGivesEveryRankTheTrianglesItWouldRead) {
  comm::Context& ctx = tessera::test::context();
  const std::vector<Triangle> sphere = icosphere({20.3, 19.7, 20.1}, 12.3, 3);  // 1280 triangles, in mm
  for (int ascii = 0; ascii < 2; ++ascii) {
    SCOPED_TRACE(ascii ? "ascii" : "binary");
    const std::string path = scratch(ascii ? "bcast_ascii.stl" : "bcast_binary.stl");
    if (ascii) write_ascii_stl(path, sphere);
    else write_binary_stl(path, sphere);
    Shape s = mesh_shape(path);
    s.file.scale = 1e-3;
    s.file.rotate = {30, -17, 61};
    s.file.translate = {1e-3, 2e-3, -3e-3};
    const std::vector<Triangle> own = read_placed_mesh(s.file);
    const std::vector<Triangle> got = read_mesh_on_root(ctx, s.file);
    ASSERT_EQ(got.size(), own.size());
    EXPECT_EQ(std::memcmp(got.data(), own.data(), own.size() * sizeof(Triangle)), 0) << "rank " << ctx.rank();
    std::vector<Triangle> chunked = ctx.is_root() ? own : std::vector<Triangle>{};
    broadcast_triangles(ctx, chunked, 7 * sizeof(Triangle));
    ASSERT_EQ(chunked.size(), own.size());
    EXPECT_EQ(std::memcmp(chunked.data(), own.data(), own.size() * sizeof(Triangle)), 0) << "rank " << ctx.rank();
  }
}

// Only rank 0 reads the file. Each rank names a file of its own here: where rank 0's is broken,
// every rank refuses with rank 0's message (the others' files are good); where only the other
// ranks' are broken (or missing), every rank loads rank 0's mesh.
TEST(FdtdMesh, OnlyRankZeroReadsTheFile) {
  comm::Context& ctx = tessera::test::context();
  const std::vector<Triangle> good = icosphere({4e-3, 4e-3, 4e-3}, 2e-3, 2);
  std::vector<Triangle> open = good;
  open.erase(open.begin() + 9);
  const std::string path = scratch("rank_file.stl");
  write_binary_stl(path, ctx.is_root() ? open : good);
  EXPECT_HAS(load_error(nullptr, path), "is not a closed surface: 3 open edge(s)");

  write_binary_stl(path, good);
  Model m = glass_grid({8, 8, 8}, 1e-3);
  m.shapes.push_back(mesh_shape(ctx.is_root() ? path : scratch("no_such_file.stl")));
  ASSERT_NO_THROW(load_geometry(ctx, m, whole(m)));
  const std::vector<int> cells = painted(m, whole(m));
  std::size_t inside = 0;
  for (int v : cells) inside += v == 1;
  EXPECT_GT(inside, 8u);  // 4/3 pi 2^3 = 33.5 cells
  std::filesystem::remove(path);
}

// Shapes compose in deck order, a mesh like any other: a box listed after the mesh sphere takes
// the cells they share, and listed before it, keeps only its cells outside the sphere.
TEST(FdtdMesh, LaterShapesOverwriteAMeshAndAMeshOverwritesEarlierOnes) {
  const double d = 1e-3, r = 8.3e-3;
  const Vertex c{12.2e-3, 11.8e-3, 12.1e-3};
  const std::string path = scratch("compose.stl");
  write_binary_stl(path, icosphere(c, r, 4));
  Shape box;
  box.kind = ShapeKind::box;
  box.material = 2;
  box.min = {12e-3, 0, 0};  // the sphere's +x half and beyond
  box.max = {24e-3, 24e-3, 24e-3};
  Model after = glass_grid({24, 24, 24}, d);
  after.materials.push_back({"metal", 9, 0, false, {}});
  after.shapes = {mesh_shape(path), box};
  Model before = after;
  before.shapes = {box, mesh_shape(path)};
  const auto a = painted(after, whole(after)), b = painted(before, whole(before));
  std::size_t sphere_and_box = 0;
  for (std::int64_t k = 0; k < 24; ++k)
    for (std::int64_t j = 0; j < 24; ++j)
      for (std::int64_t i = 0; i < 24; ++i) {
        const std::size_t n = static_cast<std::size_t>(i + 24 * (j + 24 * k));
        const double x = (i + 0.5) * d;
        const double dist = std::hypot(x - c[0], (j + 0.5) * d - c[1], (k + 0.5) * d - c[2]);
        if (std::abs(dist - r) <= d) continue;  // the surface's cells may go either way
        const bool in_sphere = dist < r, in_box = x >= 12e-3;
        sphere_and_box += in_sphere && in_box;
        const int want_after = in_box ? 2 : in_sphere ? 1 : 0, want_before = in_sphere ? 1 : in_box ? 2 : 0;
        ASSERT_EQ(a[n], want_after) << "box after the mesh, cell " << i << " " << j << " " << k;
        ASSERT_EQ(b[n], want_before) << "box before the mesh, cell " << i << " " << j << " " << k;
      }
  EXPECT_GT(sphere_and_box, 500u);  // half of 4/3 pi 7.3^3 = 815 cells well inside
}
