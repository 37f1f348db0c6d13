#pragma once
// Reading STL triangle surfaces (binary and ASCII) for shape = "mesh".
#include <array>
#include <string>
#include <vector>

namespace tessera::fdtd {

struct ShapeFile;

using Vertex = std::array<double, 3>;
using Triangle = std::array<Vertex, 3>;

// The triangles of an STL file, in the file's units and order (the facet normals are ignored:
// inside and outside come from the surface itself). Binary when the file's size is exactly
// 84 + 50 n for the triangle count n of its header (a binary header may itself start with
// "solid"), ASCII when it starts with "solid". Throws InputError naming the deck line, the
// table and the file when it is not STL, is truncated, holds no triangle, or has a NaN or
// infinite coordinate (naming the triangle, counted from 0).
std::vector<Triangle> read_stl(const ShapeFile& file);

// The prefix of every message about `file`: "deck.toml:12: fdtd.geometry[1]: 'a.stl'".
std::string stl_context(const ShapeFile& file);

}  // namespace tessera::fdtd
