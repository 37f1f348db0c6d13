#pragma once
// The material grid as output (docs/fdtd.md, "Looking at the material grid"): once, at the
// start of a run, before the first step.
//
//  - [[fdtd.volume]] whose components name eps_x eps_y eps_z sigma material
//    (material_quantity.hpp): <dir>/<name>_materials.h5 and <name>_materials.xmf, over the
//    volume's region and stride;
//  - [output] materials = true: <dir>/materials.h5 and materials.xmf, every quantity over the
//    whole grid.
//
// Each file holds one (nz, ny, nx) dataset per quantity, sample (i, j, k) being cell
// first_cell + (i, j, k) stride: eps_x, eps_y, eps_z (float32, units "1"), sigma (float32,
// "S/m"), material (uint8, "1", attribute `materials`: the names of the indices in order).
// Each dataset has `origin` and `spacing` (m, x y z: the centre of the first sample's cell, and
// the distance between samples) like the fields, and `voxel_origin` and `voxel_size` (its low
// corner, and stride x cell size): the placement that reads `material` back as
// [[fdtd.geometry]] shape = "voxels" with materials = the names. The .xmf shows the samples as
// cells (Center="Cell" on a grid of their corners), so ParaView draws the voxels.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "io/provenance.hpp"
#include "solvers/fdtd/params.hpp"
#include "solvers/fdtd/smoothing.hpp"

namespace tessera::fdtd {

class MaterialWriter {
 public:
  // InputError (the same on every rank) when the whole grid's materials.xmf would overwrite a
  // collocated volume's <name>.xmf.
  // `index`: this rank's painted material index (Stepper::release_material_index), kept only
  // where something is to be written.
  MaterialWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model, const LocalDomain& domain,
                 io::Provenance provenance, bool whole_grid, std::vector<MaterialIndex> index);
  // Collective: writes every file (the structure does not change during a run).
  // `nodes`: the E nodes with their own permittivity (Stepper::node_overrides).
  void write(std::span<const NodeOverride> nodes = {});
  bool empty() const { return outputs_.empty(); }

 private:
  struct Output {
    std::string stem;  // file name without .h5 / .xmf
    VolumeSpec spec;   // region, stride, quantities
  };
  void write_one(const Output& out, std::span<const NodeOverride> nodes);

  comm::Context& ctx_;
  std::filesystem::path dir_;
  const Model& model_;
  LocalDomain domain_;
  io::Provenance provenance_;
  std::vector<Output> outputs_;
  std::vector<MaterialIndex> index_;
};

}  // namespace tessera::fdtd
