#pragma once
// Loading the file-backed shapes (mesh, voxels) for one rank.
#include "comm/context.hpp"
#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// How far beyond its own cells a rank paints and samples geometry: sub-pixel smoothing averages
// over a cell around each E node and compares neighbouring cells, so two cells each side.
inline constexpr std::int64_t kGeometryMargin = 2;

// The global cells a rank needs geometry for: its own and kGeometryMargin more on each side,
// clipped to the grid.
Box geometry_region(const LocalDomain& dom);

// Collective. Loads every mesh and voxels shape's file for this rank's geometry_region: a mesh is
// read and checked on rank 0 and its triangles broadcast (mesh_broadcast.hpp), each rank then
// keeping those that touch its cells; a voxel map is read by each rank, only the part under its
// cells. Sets the shape's `data` and its bounds (min, max) and refuses a shape that lies outside
// the grid. Every failure is agreed: every rank throws the same comm::AgreedInputError (naming
// the deck line, the file and what is wrong) or comm::CollectiveError, so the caller needs no
// agreement point of its own around it. Shapes without a file are left as they are.
void load_geometry(comm::Context& ctx, Model& m, const LocalDomain& dom);

}  // namespace tessera::fdtd
