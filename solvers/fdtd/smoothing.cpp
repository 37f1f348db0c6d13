#include "solvers/fdtd/smoothing.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/geometry/load.hpp"
#include "solvers/fdtd/geometry/shape_data.hpp"

namespace tessera::fdtd {

namespace {

// Per axis over the node's box, faces included (a sliver of another medium at a face is seen):
// offsets -1/2, -1/4, 0, 1/4, 1/2 of a cell, exact binary fractions.
constexpr int kSamples = 5;
constexpr int kCutSamples = 16;   // per axis across the normal, for the volume fraction
constexpr int kBisections = 40;   // the interface's place along the normal, to ~1e-12 of a cell

using Vec = std::array<double, 3>;

bool special(const Model& m, int material) {
  const MaterialSpec& s = m.materials[static_cast<std::size_t>(material)];
  return s.pec || s.dispersive();
}

struct Medium {
  PointMedium at;
  bool mapped = false;  // eps_r from a map (a voxel eps_r dataset), not the table
};

// A sample point beyond the grid: wrapped across a periodic axis, else moved onto the wall
// (the medium continues through it, as the walls' ghost cells do).
Vec fold(const Model& m, Vec p) {
  for (int a = 0; a < 3; ++a) {
    const double length = m.cells[a] * m.cell_size[a];
    if (m.periodic(a)) p[a] -= length * std::floor(p[a] / length);
    else p[a] = std::clamp(p[a], 0.0, length);
  }
  return p;
}

Medium medium_with_origin(const Model& m, const Vec& point) {
  const Vec p = fold(m, point);
  Medium r;
  r.at.material = m.background;
  r.at.eps_r = m.materials[static_cast<std::size_t>(m.background)].eps_r;
  r.at.sigma = m.materials[static_cast<std::size_t>(m.background)].sigma;
  for (const Shape& s : m.shapes) {
    const int mat = s.material_at(p);
    if (mat < 0) continue;
    const MaterialSpec& spec = m.materials[static_cast<std::size_t>(mat)];
    const double mapped = s.data ? s.data->eps_r_at(p) : std::nan("");
    r.at = {mat, std::isnan(mapped) ? spec.eps_r : mapped, spec.sigma};
    r.mapped = !std::isnan(mapped);
  }
  return r;
}

// Fraction of the box (edges d, centred on the origin) on the side n.u > t of the plane, n a
// unit vector: exact along the axis where |n| is largest, a kCutSamples^2 midpoint rule across.
double fraction_beyond(const Vec& n, double t, const Vec& d) {
  int a = 0;
  for (int q = 1; q < 3; ++q)
    if (std::abs(n[q]) > std::abs(n[a])) a = q;
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  double sum = 0;
  for (int sb = 0; sb < kCutSamples; ++sb) {
    const double ub = ((sb + 0.5) / kCutSamples - 0.5) * d[b];
    for (int sc = 0; sc < kCutSamples; ++sc) {
      const double uc = ((sc + 0.5) / kCutSamples - 0.5) * d[c];
      // The plane crosses this line along a at u_a = (t - n_b u_b - n_c u_c) / n_a.
      const double cut = (t - n[b] * ub - n[c] * uc) / n[a];
      const double beyond = n[a] > 0 ? 0.5 * d[a] - cut : cut + 0.5 * d[a];
      sum += std::clamp(beyond / d[a], 0.0, 1.0);
    }
  }
  return sum / (kCutSamples * kCutSamples);
}

// eps_r and sigma that component `comp` sees at the node at x (metres); nullopt where the
// staircase stays (one medium only, a conductor or a dispersive medium in the box).
std::optional<PointMedium> smoothed_medium(const Model& m, const Vec& x, int comp) {
  const Vec& d = m.cell_size;
  // The media in the box, and the first moment of each sample's medium relative to the node's.
  const PointMedium centre = medium_with_origin(m, x).at;
  if (special(m, centre.material)) return std::nullopt;
  std::optional<PointMedium> other;
  bool three = false;
  Vec moment{0, 0, 0};
  int count_other = 0;
  double sum_eps = 0, sum_inv = 0, sum_sigma = 0;
  for (int sk = 0; sk < kSamples; ++sk)
    for (int sj = 0; sj < kSamples; ++sj)
      for (int si = 0; si < kSamples; ++si) {
        // Offsets are exact binary fractions of d, so symmetric samples cancel exactly.
        const Vec u{(double(si) / (kSamples - 1) - 0.5) * d[0], (double(sj) / (kSamples - 1) - 0.5) * d[1],
                    (double(sk) / (kSamples - 1) - 0.5) * d[2]};
        const PointMedium s = medium_with_origin(m, {x[0] + u[0], x[1] + u[1], x[2] + u[2]}).at;
        if (special(m, s.material)) return std::nullopt;
        sum_eps += s.eps_r;
        sum_inv += 1 / s.eps_r;
        sum_sigma += s.sigma;
        if (s == centre) continue;
        if (other && !(s == *other)) three = true;
        other = s;
        ++count_other;
        for (int q = 0; q < 3; ++q) moment[q] += u[q] / d[q];  // in cells, so the normal is isotropic in cells
      }
  if (!other) return std::nullopt;
  constexpr double total = kSamples * kSamples * kSamples;
  double norm = std::sqrt(moment[0] * moment[0] + moment[1] * moment[1] + moment[2] * moment[2]);
  if (three || norm == 0) {
    // No plane to place: the samples' own means, the arithmetic one for every component.
    return PointMedium{centre.material, sum_eps / total, sum_sigma / total};
  }
  // The normal, in metres (the moment is in cells: scale back by 1/d and renormalise).
  Vec n;
  for (int q = 0; q < 3; ++q) n[q] = moment[q] / d[q];
  norm = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (double& v : n) v /= norm;
  // Where the other medium starts along n from the node: bracket, then bisect.
  const double reach = 0.5 * (std::abs(n[0]) * d[0] + std::abs(n[1]) * d[1] + std::abs(n[2]) * d[2]);
  auto beyond = [&](double t) {
    return medium_with_origin(m, {x[0] + t * n[0], x[1] + t * n[1], x[2] + t * n[2]}).at == *other;
  };
  double lo = 0, hi = -1;
  constexpr int kSteps = 16;
  for (int q = 1; q <= kSteps; ++q) {
    const double t = reach * q / kSteps;
    if (beyond(t)) {
      hi = t;
      break;
    }
    lo = t;
  }
  double f_other = double(count_other) / total;
  if (hi > 0) {
    for (int q = 0; q < kBisections; ++q) {
      const double mid = 0.5 * (lo + hi);
      (beyond(mid) ? hi : lo) = mid;
    }
    f_other = fraction_beyond(n, 0.5 * (lo + hi), d);
  }
  const double f_centre = 1 - f_other;
  const double harmonic = f_centre / centre.eps_r + f_other / other->eps_r;        // <1/eps>
  const double arithmetic = f_centre * centre.eps_r + f_other * other->eps_r;      // <eps>
  const double inv = n[comp] * n[comp] * harmonic + (1 - n[comp] * n[comp]) / arithmetic;
  return PointMedium{centre.material, 1 / inv, f_centre * centre.sigma + f_other * other->sigma};
}

}  // namespace

PointMedium medium_at(const Model& m, const std::array<double, 3>& p) { return medium_with_origin(m, p).at; }

double node_cb(const Model& m, double eps_r, double sigma) {
  const double eps = kEps0 * eps_r;
  return m.dt / eps / (1 + sigma * m.dt / (2 * eps));
}

NodeOverride node_coefficients(const Model& m, int component, double eps_r, double sigma) {
  // The table's formula (materials.cpp), per node.
  const double eps = kEps0 * eps_r;
  const double loss = sigma * m.dt / (2 * eps);
  const double ca = (1 - loss) / (1 + loss);
  const double cb = m.dt / eps / (1 + loss);
  NodeOverride o;
  o.component = component;
  o.ca = static_cast<float>(ca);
  o.c1 = static_cast<float>(cb / m.cell_size[(component + 1) % 3]);
  o.c2 = static_cast<float>(cb / m.cell_size[(component + 2) % 3]);
  o.eps_r = eps_r;
  o.sigma = sigma;
  return o;
}

std::vector<NodeOverride> node_overrides(const Model& m, const LocalDomain& dom, const Layout& layout,
                                         std::span<const MaterialIndex> painted, const std::vector<Box>& excluded) {
  bool maps = false;
  for (const Shape& s : m.shapes) maps = maps || s.kind == ShapeKind::voxels;
  if (!m.smoothing && !maps) return {};
  if (m.shapes.empty()) return {};

  // The material at every cell centre of the region around this rank's cells: its own painted
  // ones, the margin's from the shapes.
  const Box region = geometry_region(dom);
  const Index3 rn{region.extent(0), region.extent(1), region.extent(2)};
  auto at_region = [&](std::int64_t gi, std::int64_t gj, std::int64_t gk) {
    return static_cast<std::size_t>((gi - region.lo[0]) + rn[0] * ((gj - region.lo[1]) + rn[1] * (gk - region.lo[2])));
  };
  std::vector<int> centre(static_cast<std::size_t>(region.cells()));
  const Vec& d = m.cell_size;
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t gk = region.lo[2]; gk < region.hi[2]; ++gk)
    for (std::int64_t gj = region.lo[1]; gj < region.hi[1]; ++gj)
      for (std::int64_t gi = region.lo[0]; gi < region.hi[0]; ++gi) {
        const Index3 g{gi, gj, gk};
        centre[at_region(gi, gj, gk)] =
            dom.owns(g) ? int(painted[static_cast<std::size_t>(
                              layout.at(gi - dom.offset[0], gj - dom.offset[1], gk - dom.offset[2]))])
                        : medium_at(m, {(gi + 0.5) * d[0], (gj + 0.5) * d[1], (gk + 0.5) * d[2]}).material;
      }
  // Cells whose centre's material differs from a neighbour's (26-neighbourhood, in the region).
  std::vector<std::uint8_t> near(centre.size(), 0);
  if (m.smoothing) {
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t gk = region.lo[2]; gk < region.hi[2]; ++gk)
      for (std::int64_t gj = region.lo[1]; gj < region.hi[1]; ++gj)
        for (std::int64_t gi = region.lo[0]; gi < region.hi[0]; ++gi) {
          const int mine = centre[at_region(gi, gj, gk)];
          bool differs = false;
          for (std::int64_t dk = -1; dk <= 1 && !differs; ++dk)
            for (std::int64_t dj = -1; dj <= 1 && !differs; ++dj)
              for (std::int64_t di = -1; di <= 1 && !differs; ++di) {
                const Index3 g{gi + di, gj + dj, gk + dk};
                bool inside = true;
                for (int a = 0; a < 3; ++a) inside = inside && g[a] >= region.lo[a] && g[a] < region.hi[a];
                differs = inside && centre[at_region(g[0], g[1], g[2])] != mine;
              }
          near[at_region(gi, gj, gk)] = differs ? 1 : 0;
        }
  }
  // Bounds of the eps_r maps (in cells), so only the nodes they can cover are queried.
  std::vector<Box> map_cells;
  for (const Shape& s : m.shapes)
    if (s.kind == ShapeKind::voxels) {
      Box b;
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(s.min[a] / d[a])) - 1);
        b.hi[a] = std::min<std::int64_t>(m.cells[a], static_cast<std::int64_t>(std::ceil(s.max[a] / d[a])) + 1);
      }
      map_cells.push_back(b);
    }
  const std::vector<MaterialSpec>& mats = m.materials;

  std::vector<std::vector<NodeOverride>> per_plane(static_cast<std::size_t>(dom.n[2]));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t k = 0; k < dom.n[2]; ++k) {
    std::vector<NodeOverride>& out = per_plane[static_cast<std::size_t>(k)];
    for (std::int64_t j = 0; j < dom.n[1]; ++j)
      for (std::int64_t i = 0; i < dom.n[0]; ++i) {
        const Index3 g{dom.offset[0] + i, dom.offset[1] + j, dom.offset[2] + k};
        bool skip = false;
        for (const Box& b : excluded) {
          bool in = true;
          for (int a = 0; a < 3; ++a) in = in && g[a] >= b.lo[a] && g[a] < b.hi[a];
          skip = skip || in;
        }
        if (skip) continue;
        const std::int64_t index = layout.at(i, j, k);
        const int cell_material = painted[static_cast<std::size_t>(index)];
        if (special(m, cell_material)) continue;
        bool in_map = false;
        for (const Box& b : map_cells) {
          bool in = true;
          for (int a = 0; a < 3; ++a) in = in && g[a] >= b.lo[a] && g[a] < b.hi[a];
          in_map = in_map || in;
        }
        for (int c = 0; c < 3; ++c) {
          const auto off = staggering(c);
          const Vec x{(g[0] + off[0]) * d[0], (g[1] + off[1]) * d[1], (g[2] + off[2]) * d[2]};
          std::optional<PointMedium> seen;
          if (in_map) {
            const Medium here = medium_with_origin(m, x);
            if (here.mapped) seen = here.at;  // a map's value at the node: no averaging
          }
          if (!seen && m.smoothing) {
            // The node's box overlaps the cells g - 1 .. g along the axes where it sits on a
            // cell face (offset 0), only g along its own axis.
            bool candidate = false;
            for (std::int64_t dk = (off[2] == 0 ? -1 : 0); dk <= 0 && !candidate; ++dk)
              for (std::int64_t dj = (off[1] == 0 ? -1 : 0); dj <= 0 && !candidate; ++dj)
                for (std::int64_t di = (off[0] == 0 ? -1 : 0); di <= 0 && !candidate; ++di)
                  candidate = g[0] + di >= region.lo[0] && g[1] + dj >= region.lo[1] && g[2] + dk >= region.lo[2] &&
                              near[at_region(g[0] + di, g[1] + dj, g[2] + dk)];
            if (candidate) seen = smoothed_medium(m, x, c);
          }
          if (!seen) continue;
          NodeOverride o = node_coefficients(m, c, seen->eps_r, seen->sigma);
          // Nothing to redo where the node computes what its cell's table entry gives.
          const NodeOverride table =
              node_coefficients(m, c, mats[static_cast<std::size_t>(cell_material)].eps_r,
                                mats[static_cast<std::size_t>(cell_material)].sigma);
          if (o.ca == table.ca && o.c1 == table.c1 && o.c2 == table.c2) continue;
          o.index = index;
          out.push_back(o);
        }
      }
  }
  std::vector<NodeOverride> all;
  for (auto& p : per_plane) all.insert(all.end(), p.begin(), p.end());
  return all;
}

}  // namespace tessera::fdtd
