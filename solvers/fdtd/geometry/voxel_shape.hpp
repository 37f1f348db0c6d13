#pragma once
// shape = "voxels": an HDF5 array of material numbers or of eps_r, sampled onto the Yee grid.
#include "solvers/fdtd/geometry/loaded_shape.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {

// Reads the part of s.file's dataset that covers the global cells of `region` (each rank its
// own part). Throws InputError naming the file and dataset when it is missing, of the wrong
// type or rank, or holds a material number beyond s.file.materials.
LoadedShape load_voxel_shape(const Shape& s, const Model& m, const Box& region);

}  // namespace tessera::fdtd
