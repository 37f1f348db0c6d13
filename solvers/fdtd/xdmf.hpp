#pragma once
// The XDMF sidecar of a field output series: one temporal collection of the output steps,
// each a spatial collection of one uniform grid per component whose origin carries the Yee
// staggering, so ParaView and VisIt place every component where the scheme computes it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "solvers/fdtd/grid.hpp"

namespace tessera::fdtd {

struct XdmfStep {
  std::int64_t step = 0;
  double time = 0;
  std::string file;  // the HDF5 file, relative to the .xmf
};

struct XdmfSeries {
  std::string name;
  std::vector<int> components;
  Index3 samples{};                        // points per axis (x, y, z)
  std::array<double, 3> cell_size{};       // m
  Index3 first_cell{};                     // global cell of the first sample
  Index3 stride{1, 1, 1};
  std::vector<XdmfStep> steps;
};

std::string xdmf_text(const XdmfSeries& series);

}  // namespace tessera::fdtd
