#include "solvers/fdtd/geometry/mesh_broadcast.hpp"

#include <algorithm>
#include <cstdint>
#include <span>

#include "comm/collectives.hpp"
#include "core/profile.hpp"
#include "io/agree.hpp"
#include "solvers/fdtd/geometry/mesh_shape.hpp"

namespace tessera::fdtd {

static_assert(sizeof(Triangle) == 9 * sizeof(double), "a Triangle is 9 contiguous doubles (sent as such)");

void broadcast_triangles(comm::Context& ctx, std::vector<Triangle>& tris, std::size_t chunk_bytes) {
  const auto n = comm::broadcast_value(ctx, static_cast<std::uint64_t>(tris.size()));
  // The one step that may fail on one rank alone (memory): agreed before the data moves.
  comm::agree(ctx, [&] {
    if (!ctx.is_root()) tris.resize(static_cast<std::size_t>(n));
  });
  const std::size_t per_chunk = std::max<std::size_t>(1, std::min(chunk_bytes, kTriangleChunkBytes) / sizeof(Triangle));
  for (std::size_t first = 0; first < tris.size(); first += per_chunk) {
    const std::size_t count = std::min(per_chunk, tris.size() - first);
    comm::broadcast(ctx, std::span<double>(tris[first][0].data(), 9 * count));
  }
}

std::vector<Triangle> read_mesh_on_root(comm::Context& ctx, const ShapeFile& file) {
  std::vector<Triangle> tris;
  // Only rank 0 works in the body; the agreement then carries its refusal (or an allocation
  // failure) to every rank before the broadcast below, which every rank then reaches.
  io::agree_input(ctx, [&] {
    if (!ctx.is_root()) return;
    TESSERA_PROFILE("fdtd.mesh_read");  // read, closed-surface check, transform
    tris = read_placed_mesh(file);
  });
  TESSERA_PROFILE("fdtd.mesh_bcast");
  broadcast_triangles(ctx, tris);
  return tris;
}

}  // namespace tessera::fdtd
