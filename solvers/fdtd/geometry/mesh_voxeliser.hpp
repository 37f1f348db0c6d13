#pragma once
// Inside/outside of a closed triangle surface, for the cells one rank paints and samples.
//
// The rule: a point p is inside when a ray from p along +x crosses the surface an odd number
// of times, counting the crossings at x > p.x. Whether the line through (p.y, p.z) along x
// crosses a triangle is decided in the (y, z) projection with three edge functions
//   E(a, b) = (a.y - p.y)(b.z - p.z) - (a.z - p.z)(b.y - p.y),
// each evaluated with the edge's corners in a canonical order (lexicographic in (y, z)) and
// negated when the triangle runs the edge the other way, so the two triangles of a shared edge
// get exactly opposite values. The line crosses the triangle when the non-zero values share
// one sign s. A zero value (the line through the edge, or through a corner: two zeros) counts
// as inside when the edge direction d = s (b - a) has d.z > 0, or d.z == 0 and d.y < 0: as if
// p moved by an infinitesimal step along -y, then a smaller one along -z. Of the triangles
// meeting at an edge or corner the line passes through, exactly the ones a slightly moved line
// would cross are counted, so a closed surface is crossed an even number of times along any
// row and no ray leaks through a seam. Triangles seen edge-on (all values zero) are skipped:
// their neighbours decide. The crossing's x is the barycentric mean of the corners' x.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "solvers/fdtd/geometry/shape_data.hpp"
#include "solvers/fdtd/geometry/stl_reader.hpp"

namespace tessera::fdtd {

class MeshVoxeliser final : public ShapeData {
 public:
  // `tris` in metres (global coordinates); `region` the global cells to answer for. Keeps the
  // triangles whose bounds touch the region's (y, z) rows (one cell of slack) and reach its
  // low x face or beyond (the +x ray needs every crossing up to the end of the row), and bins
  // them on a 2D grid over (y, z).
  MeshVoxeliser(const std::vector<Triangle>& tris, int material, const Box& region, const std::array<double, 3>& cell_size);

  // `material` at p when p is inside, else -1. p must lie within the region (one cell of
  // slack); elsewhere throws std::out_of_range (this rank did not load those triangles).
  int material_at(const Point& p) const override;
  // One row at a time: the row's crossings once, sorted, then the cells filled by intervals.
  // The same answers as material_at() cell by cell (the same crossings, the same comparison).
  void material_at_centres(const Box& cells, const std::array<double, 3>& cell_size, std::span<int> out) const override;

  std::size_t triangles() const { return tris_.size(); }  // kept on this rank

 private:
  // The x of every crossing of the line through (y, z) along x, unsorted.
  void crossings(double y, double z, std::vector<double>& xs) const;
  std::size_t bin_of(double y, double z) const;  // throws std::out_of_range outside the grid

  std::vector<Triangle> tris_;
  int material_;
  double y0_, z0_, by_, bz_, xlow_;  // bin grid origin and bin size, the lowest x answered for
  std::int64_t ny_, nz_;
  std::vector<std::uint32_t> start_, members_;  // bin b holds members_[start_[b] .. start_[b + 1])
};

}  // namespace tessera::fdtd
