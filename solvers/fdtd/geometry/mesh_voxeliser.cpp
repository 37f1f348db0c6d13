#include "solvers/fdtd/geometry/mesh_voxeliser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera::fdtd {
namespace {

// E(a, b) at (y, z) with a and b in canonical order, so E(b, a) == -E(a, b) bit for bit.
double edge_function(const Vertex& a, const Vertex& b, double y, double z) {
  const bool swap = b[1] < a[1] || (b[1] == a[1] && b[2] < a[2]);
  const Vertex& p = swap ? b : a;
  const Vertex& q = swap ? a : b;
  const double e = (p[1] - y) * (q[2] - z) - (p[2] - z) * (q[1] - y);
  return swap ? -e : e;
}

// The tie-break of an edge the line passes through (E == 0): see mesh_voxeliser.hpp.
bool edge_counts(const Vertex& a, const Vertex& b, double s) {
  const double dy = s * (b[1] - a[1]), dz = s * (b[2] - a[2]);
  return dz > 0 || (dz == 0 && dy < 0);
}

// Whether the line through (y, z) along x crosses t (x: where).
bool crosses(const Triangle& t, double y, double z, double& x) {
  const double e0 = edge_function(t[0], t[1], y, z), e1 = edge_function(t[1], t[2], y, z),
               e2 = edge_function(t[2], t[0], y, z);
  const bool pos = e0 > 0 || e1 > 0 || e2 > 0, neg = e0 < 0 || e1 < 0 || e2 < 0;
  if (pos == neg) return false;  // on both sides of an edge, or edge-on (all zero)
  const double s = pos ? 1.0 : -1.0;
  if ((e0 == 0 && !edge_counts(t[0], t[1], s)) || (e1 == 0 && !edge_counts(t[1], t[2], s)) ||
      (e2 == 0 && !edge_counts(t[2], t[0], s)))
    return false;
  // Barycentric weights: a corner's is the edge function of the edge facing it.
  x = (e1 * t[0][0] + e2 * t[1][0] + e0 * t[2][0]) / (e0 + e1 + e2);
  return true;
}

}  // namespace

MeshVoxeliser::MeshVoxeliser(const std::vector<Triangle>& tris, int material, const Box& region,
                             const std::array<double, 3>& d)
    : material_(material) {
  // The answered box: the region and one cell more each side (queries near its faces).
  y0_ = double(region.lo[1] - 1) * d[1];
  z0_ = double(region.lo[2] - 1) * d[2];
  xlow_ = double(region.lo[0] - 1) * d[0];
  const double y1 = double(region.hi[1] + 1) * d[1], z1 = double(region.hi[2] + 1) * d[2];
  // A crossing's x may round an ulp beyond its triangle's bounds: keep one more cell along x.
  const double keep_x = xlow_ - d[0];
  for (const Triangle& t : tris) {
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min({t[0][a], t[1][a], t[2][a]});
      hi[a] = std::max({t[0][a], t[1][a], t[2][a]});
    }
    if (hi[0] >= keep_x && hi[1] >= y0_ && lo[1] <= y1 && hi[2] >= z0_ && lo[2] <= z1) tris_.push_back(t);
  }
  // Bins of whole cells, sized for a few triangles each: a fine mesh gets one row per bin,
  // a coarse one few large bins (a triangle is listed in every bin its bounds overlap).
  const std::int64_t rows_y = region.extent(1) + 2, rows_z = region.extent(2) + 2;
  const double per_bin = std::sqrt(double(rows_y) * double(rows_z) / double(std::max<std::size_t>(tris_.size(), 1)));
  const std::int64_t cells_per_bin = std::max<std::int64_t>(1, std::int64_t(per_bin));
  by_ = double(cells_per_bin) * d[1];
  bz_ = double(cells_per_bin) * d[2];
  ny_ = (rows_y + cells_per_bin - 1) / cells_per_bin;
  nz_ = (rows_z + cells_per_bin - 1) / cells_per_bin;
  const auto bin_range = [&](const Triangle& t, int a, double origin, double size, std::int64_t n) {
    // Widened by a hair so a crossing found by rounding just outside the bounds is still seen
    // (whatever the grid's origin, i.e. on any rank count).
    const double pad = 1e-9 * size;
    const double lo = std::min({t[0][a], t[1][a], t[2][a]}) - pad, hi = std::max({t[0][a], t[1][a], t[2][a]}) + pad;
    const auto clamp = [&](double v) { return std::clamp<std::int64_t>(std::int64_t(std::floor((v - origin) / size)), 0, n - 1); };
    return std::array<std::int64_t, 2>{clamp(lo), clamp(hi)};
  };
  start_.assign(static_cast<std::size_t>(ny_ * nz_ + 1), 0);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::uint32_t> fill;
    if (pass == 1) {
      for (std::size_t b = 1; b < start_.size(); ++b) start_[b] += start_[b - 1];
      members_.resize(start_.back());
      fill.assign(start_.begin(), start_.end() - 1);
    }
    for (std::uint32_t i = 0; i < tris_.size(); ++i) {
      const auto ry = bin_range(tris_[i], 1, y0_, by_, ny_), rz = bin_range(tris_[i], 2, z0_, bz_, nz_);
      for (std::int64_t k = rz[0]; k <= rz[1]; ++k)
        for (std::int64_t j = ry[0]; j <= ry[1]; ++j) {
          const std::size_t b = static_cast<std::size_t>(j + ny_ * k);
          if (pass == 0) ++start_[b + 1];
          else members_[fill[b]++] = i;
        }
    }
  }
}

std::size_t MeshVoxeliser::bin_of(double y, double z) const {
  const std::int64_t j = std::int64_t(std::floor((y - y0_) / by_)), k = std::int64_t(std::floor((z - z0_) / bz_));
  if (j < 0 || j >= ny_ || k < 0 || k >= nz_ || !(y >= y0_) || !(z >= z0_))
    throw std::out_of_range(fmt::format("mesh: the point (y, z) = ({:g}, {:g}) m lies outside the rows this rank "
                                        "loaded",
                                        y, z));
  return static_cast<std::size_t>(j + ny_ * k);
}

void MeshVoxeliser::crossings(double y, double z, std::vector<double>& xs) const {
  xs.clear();
  const std::size_t b = bin_of(y, z);
  double x;
  for (std::uint32_t m = start_[b]; m < start_[b + 1]; ++m)
    if (crosses(tris_[members_[m]], y, z, x)) xs.push_back(x);
}

int MeshVoxeliser::material_at(const Point& p) const {
  if (!(p[0] >= xlow_))
    throw std::out_of_range(fmt::format("mesh: the point x = {:g} m lies below the cells this rank loaded", p[0]));
  const std::size_t b = bin_of(p[1], p[2]);
  std::size_t beyond = 0;
  double x;
  for (std::uint32_t m = start_[b]; m < start_[b + 1]; ++m)
    if (crosses(tris_[members_[m]], p[1], p[2], x) && x > p[0]) ++beyond;
  return beyond % 2 ? material_ : -1;
}

void MeshVoxeliser::material_at_centres(const Box& cells, const std::array<double, 3>& d, std::span<int> out) const {
  std::vector<double> xs;
  std::size_t n = 0;
  for (std::int64_t k = cells.lo[2]; k < cells.hi[2]; ++k)
    for (std::int64_t j = cells.lo[1]; j < cells.hi[1]; ++j) {
      // The same coordinates as the point queries of ShapeData::material_at_centres.
      crossings((j + 0.5) * d[1], (k + 0.5) * d[2], xs);
      std::sort(xs.begin(), xs.end());
      std::size_t below = 0;  // crossings at x <= the cell centre
      for (std::int64_t i = cells.lo[0]; i < cells.hi[0]; ++i) {
        const double x = (i + 0.5) * d[0];
        if (i == cells.lo[0] && !(x >= xlow_))
          throw std::out_of_range(fmt::format("mesh: the point x = {:g} m lies below the cells this rank loaded", x));
        while (below < xs.size() && xs[below] <= x) ++below;
        out[n++] = (xs.size() - below) % 2 ? material_ : -1;
      }
    }
}

}  // namespace tessera::fdtd
