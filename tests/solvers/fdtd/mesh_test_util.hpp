#pragma once
// Meshes written by the mesh tests: STL writers and closed surfaces built in code.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "solvers/fdtd/geometry/stl_reader.hpp"

namespace tessera::fdtd::test {

inline void write_binary_stl(const std::string& path, const std::vector<Triangle>& tris) {
  std::ofstream out(path, std::ios::binary);
  char header[80] = "solid written by the tessera tests (binary nevertheless)";
  out.write(header, 80);
  const auto n = static_cast<std::uint32_t>(tris.size());
  out.write(reinterpret_cast<const char*>(&n), 4);
  for (const Triangle& t : tris) {
    float rec[12] = {};
    for (int v = 0; v < 3; ++v)
      for (int a = 0; a < 3; ++a) rec[3 + 3 * v + a] = static_cast<float>(t[v][a]);
    out.write(reinterpret_cast<const char*>(rec), 48);
    out.write("\0\0", 2);
  }
}

inline void write_ascii_stl(const std::string& path, const std::vector<Triangle>& tris) {
  std::ofstream out(path);
  out.precision(17);
  out << "solid test\n";
  for (const Triangle& t : tris) {
    out << "  facet normal 0 0 0\n    outer loop\n";
    for (const Vertex& v : t) out << "      vertex " << v[0] << ' ' << v[1] << ' ' << v[2] << '\n';
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid test\n";
}

// A closed icosphere: the icosahedron subdivided `levels` times, corners pushed onto the
// sphere; shared corners are computed once, so they are bitwise equal in every triangle.
inline std::vector<Triangle> icosphere(const Vertex& centre, double radius, int levels) {
  const double t = (1 + std::sqrt(5.0)) / 2;
  std::vector<Vertex> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                           {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<int, 3>> f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                       {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                       {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                       {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  const auto unit = [](Vertex p) {
    const double r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return Vertex{p[0] / r, p[1] / r, p[2] / r};
  };
  for (auto& p : v) p = unit(p);
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> mid;
    const auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      if (auto it = mid.find(key); it != mid.end()) return it->second;
      v.push_back(unit({v[a][0] + v[b][0], v[a][1] + v[b][1], v[a][2] + v[b][2]}));
      return mid[key] = static_cast<int>(v.size()) - 1;
    };
    std::vector<std::array<int, 3>> g;
    for (const auto& [a, b, c] : f) {
      const int ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      g.insert(g.end(), {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}});
    }
    f = std::move(g);
  }
  std::vector<Triangle> tris;
  for (const auto& [a, b, c] : f) {
    Triangle tri;
    const int idx[3] = {a, b, c};
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) tri[k][d] = centre[d] + radius * v[idx[k]][d];
    tris.push_back(tri);
  }
  return tris;
}

// The 12 triangles of the box [lo, hi] (outward normals).
inline std::vector<Triangle> box_mesh(const Vertex& lo, const Vertex& hi) {
  const auto c = [&](int i) { return Vertex{i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]}; };
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  std::vector<Triangle> tris;
  for (const auto& q : quads) {
    tris.push_back({c(q[0]), c(q[1]), c(q[2])});
    tris.push_back({c(q[0]), c(q[2]), c(q[3])});
  }
  return tris;
}

// The octahedron with corners at lo and hi along each axis through mid (8 triangles): the
// corners given exactly, so that a test can put them on rays of cell centres.
inline std::vector<Triangle> octahedron(const Vertex& lo, const Vertex& mid, const Vertex& hi) {
  std::vector<Triangle> tris;
  for (int sx = -1; sx <= 1; sx += 2)
    for (int sy = -1; sy <= 1; sy += 2)
      for (int sz = -1; sz <= 1; sz += 2) {
        const Vertex a{sx > 0 ? hi[0] : lo[0], mid[1], mid[2]}, b{mid[0], sy > 0 ? hi[1] : lo[1], mid[2]},
            d{mid[0], mid[1], sz > 0 ? hi[2] : lo[2]};
        if (sx * sy * sz > 0) tris.push_back({a, b, d});
        else tris.push_back({a, d, b});
      }
  return tris;
}

}  // namespace tessera::fdtd::test
