#pragma once
// The XDMF sidecars of a field output series (docs/fdtd.md, "Opening the fields in ParaView").
//
// A staggered volume has one grid per component (each component lives on its own Yee nodes,
// so each has its own origin and, at the high walls, its own number of points); a collocated
// volume has one grid holding the vectors E and H at the cell centres. Two kinds of file:
//
//  - xdmf_text(): every grid of the volume; written as <name>.xmf for a collocated volume (one
//    grid) only, since ParaView's default reader cannot show a file of several grids. The Domain holds one temporal
//    collection per grid, named after it ("Ez", "Hx", ...; the volume's name for a collocated
//    grid), whose uniform grids carry the same name. Every grid is filed under the output's
//    time (E's: t = step dt), so each reader finds every grid at every time step; what a grid's
//    values really are at is in its field data (Center="Grid" attributes): "time" (H: t - dt/2),
//    plus "time_h" on a collocated grid, and "step".
//    ParaView's "XDMF Reader" delivers a multiblock with blocks named "Ez", "Hx", ... that
//    ExtractBlock picks by name at every time step; "Xdmf3 Reader (T)" delivers the same blocks
//    unnamed, in this order (Block0 = the first grid); "Xdmf3 Reader (S)" flattens a file of
//    several grids into the unnamed pieces of one block, which nothing can pick apart, and
//    colouring by one component paints the other pieces grey: hence the per-grid files below.
//  - xdmf_grid_text(): <name>_<grid>.xmf, one temporal collection of one grid, whose Time
//    values are the grid's own (H: t - dt/2). Every reader opens it as one plain uniform grid.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "solvers/fdtd/grid.hpp"

namespace tessera::fdtd {

struct XdmfStep {
  std::int64_t step = 0;
  double time = 0;   // of the output (E's time)
  std::string file;  // the HDF5 file, relative to the .xmf
};

struct XdmfArray {
  std::string name;  // the dataset and the array name
  int width = 1;     // 1: a scalar (nz, ny, nx) dataset; 3: a vector (nz, ny, nx, 3) dataset
};

struct XdmfGrid {
  std::string name;
  Index3 samples{};                   // points per axis (x, y, z)
  std::array<double, 3> origin{};     // position of the first point (m, x y z)
  std::array<double, 3> spacing{};    // m
  std::vector<XdmfArray> arrays;
  // Field data "<name>" = the output's time + offset (s): {"time", 0} for E, {"time", -dt/2}
  // for H; the first entry is the grid's own time (the Time value of its per-grid file).
  std::vector<std::pair<std::string, double>> times{{"time", 0.0}};
};

struct XdmfSeries {
  std::string name;
  std::vector<XdmfGrid> grids;
  std::vector<XdmfStep> steps;
};

// <name>.xmf: every grid, filed under the output times.
std::string xdmf_text(const XdmfSeries& series);
// <name>_<grid>.xmf: grid `grid` alone, filed under its own times.
std::string xdmf_grid_text(const XdmfSeries& series, std::size_t grid);

}  // namespace tessera::fdtd
