#pragma once
// params_from_deck (params.hpp) in parts: params.cpp reads the grid, boundaries, sources,
// probes and outputs; params_materials.cpp the materials and the geometry. What both use.
#include <array>

#include "core/deck/config.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd::params_detail {

inline constexpr const char* kAxis[3] = {"x", "y", "z"};
inline std::array<double, 3> vec3(const deck::FloatArray& v) { return {v[0], v[1], v[2]}; }

void read_materials(const deck::Config& d, Model& m);  // [[fdtd.material]], fdtd.background
void read_geometry(const deck::Config& d, Model& m);   // [[fdtd.geometry]]

}  // namespace tessera::fdtd::params_detail
