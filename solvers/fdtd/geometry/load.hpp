#pragma once
// Loading the file-backed shapes (mesh, voxels) for one rank.
#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// How far beyond its own cells a rank paints and samples geometry: sub-pixel smoothing averages
// over a cell around each E node and compares neighbouring cells, so two cells each side.
inline constexpr std::int64_t kGeometryMargin = 2;

// The global cells a rank needs geometry for: its own and kGeometryMargin more on each side,
// clipped to the grid.
Box geometry_region(const LocalDomain& dom);

// Reads and checks every mesh and voxels shape's file for this rank's geometry_region (each
// rank reads only what touches its cells), sets the shape's `data` and its bounds (min, max),
// and refuses a shape that lies outside the grid. Throws InputError naming the deck line, the
// file and what is wrong. Called once per rank, inside an agreement point (comm::agree);
// shapes without a file are left as they are.
void load_geometry(Model& m, const LocalDomain& dom);

}  // namespace tessera::fdtd
