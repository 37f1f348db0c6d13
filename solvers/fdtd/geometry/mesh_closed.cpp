#include "solvers/fdtd/geometry/mesh_closed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "core/error.hpp"

namespace tessera::fdtd {
namespace {

// Vertex ids: equal coordinates (exactly; -0 == 0) share one id. Sorting, not hashing, so the
// cost is predictable for a few million corners.
std::vector<std::uint32_t> weld(const std::vector<Triangle>& tris) {
  const std::size_t n = 3 * tris.size();
  const auto at = [&](std::size_t c) -> const Vertex& { return tris[c / 3][c % 3]; };
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return at(a) < at(b); });
  std::vector<std::uint32_t> id(n);
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && at(order[i]) != at(order[i - 1])) ++next;
    id[order[i]] = next;
  }
  return id;
}

std::string point(const Vertex& v) { return fmt::format("({:g}, {:g}, {:g})", v[0], v[1], v[2]); }

}  // namespace

void require_closed(std::vector<Triangle>& tris, const ShapeFile& file) {
  if (tris.size() >= (std::size_t{1} << 31) / 3)
    throw InputError(fmt::format("{}: has {} triangles, more than tessera reads ({})", stl_context(file), tris.size(),
                                 (std::size_t{1} << 31) / 3 - 1));
  std::vector<std::uint32_t> id = weld(tris);
  // Drop the triangles with a repeated corner, keeping the ids of the others.
  std::size_t kept = 0;
  std::vector<std::uint32_t> in_file;  // each kept triangle's index in the file, for messages
  for (std::size_t t = 0; t < tris.size(); ++t) {
    const std::uint32_t a = id[3 * t], b = id[3 * t + 1], c = id[3 * t + 2];
    if (a == b || b == c || c == a) continue;
    in_file.push_back(static_cast<std::uint32_t>(t));
    tris[kept] = tris[t];
    for (int k = 0; k < 3; ++k) id[3 * kept + k] = id[3 * t + k];
    ++kept;
  }
  tris.resize(kept);
  if (tris.empty())
    throw InputError(fmt::format("{}: every triangle has two equal corners: there is no surface", stl_context(file)));
  // Each edge as (smaller id, larger id) with the triangle it came from; equal keys side by side.
  struct Edge {
    std::uint64_t key;
    std::uint32_t tri;
    bool operator<(const Edge& o) const { return key < o.key || (key == o.key && tri < o.tri); }
  };
  std::vector<Edge> edges;
  edges.reserve(3 * tris.size());
  for (std::uint32_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const std::uint64_t a = id[3 * t + k], b = id[3 * t + (k + 1) % 3];
      edges.push_back({std::min(a, b) << 32 | std::max(a, b), t});
    }
  std::sort(edges.begin(), edges.end());
  std::size_t open = 0, over = 0;
  const Edge *open_example = nullptr, *over_example = nullptr;
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j].key == edges[i].key) ++j;
    if (j - i == 1 && open++ == 0) open_example = &edges[i];
    if (j - i > 2 && over++ == 0) over_example = &edges[i];
    i = j;
  }
  if (open == 0 && over == 0) return;
  const Edge* example = open_example ? open_example : over_example;
  // The example's corners: find them in its triangle by id.
  const std::uint32_t lo = static_cast<std::uint32_t>(example->key >> 32), hi = static_cast<std::uint32_t>(example->key);
  Vertex a{}, b{};
  for (int k = 0; k < 3; ++k) {
    if (id[3 * example->tri + k] == lo) a = tris[example->tri][k];
    if (id[3 * example->tri + k] == hi) b = tris[example->tri][k];
  }
  throw InputError(fmt::format("{}: is not a closed surface: {} open edge(s) (used by one triangle) and {} edge(s) used "
                               "by more than two triangles; e.g. the edge {} - {} (file units) of triangle "
                               "{} (counted from 0). A mesh shape needs a watertight surface "
                               "to tell inside from outside",
                               stl_context(file), open, over, point(a), point(b), in_file[example->tri]));
}

}  // namespace tessera::fdtd
