#pragma once
// Field outputs ([[fdtd.volume]]): at each output step, one HDF5 file per volume,
// <dir>/<name>_<step, 8 digits>.h5, at its global (sampled) size, and XDMF sidecars describing
// every output so far (solvers/fdtd/xdmf.hpp): <name>.xmf for a collocated volume,
// <name>_<component>.xmf per component for a staggered one (one grid per file, which
// ParaView's default reader shows; the first output logs which file to open).
//
// Staggered (default): one dataset per chosen component, (nz, ny, nx) of its own nodes
// (h5py: f["Ez"][k, j, i] is node (i, j, k)). Along an axis where the component has nodes on
// the domain's walls, the node on the high wall is written too where the region reaches it
// (VolumeSpec::samples(component, cells)): the tangential E and normal H of a pec or cpml wall
// (0: a PEC wall, and normal H there keeps its zero start), a periodic axis's copy of node 0.
// Collocated: "E" and/or "H", (nz, ny, nx, 3), at the cell centres: each component the mean
// of its 2 (H) or 4 (E) nodes around the centre.
// E is at t = step dt, H at t - dt/2: file attributes "time" and "time_h", and each dataset's
// "time"; each dataset's "origin" and "spacing" (m, x y z) place its element [0, 0, 0].
// Each dataset has its `units` (V/m, A/m), the root the provenance attributes
// (io/units.hpp, io/provenance.hpp).
// Files are written under a temporary name and renamed when complete, so a failed write never
// replaces a good file.
// With [output] openpmd = true, each volume also writes an openPMD file-based series,
// <dir>/openpmd/<name>/<name>_<step>.h5 (solvers/fdtd/field_openpmd.cpp, docs/fdtd.md).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "comm/context.hpp"
#include "io/h5_file.hpp"
#include "io/provenance.hpp"
#include "solvers/fdtd/stepper.hpp"
#include "solvers/fdtd/xdmf.hpp"

namespace tessera::comm {
class CartDecomposition;
class HaloExchange;
class Transport;
}  // namespace tessera::comm

namespace tessera::fdtd {

class FieldWriter {
 public:
  // Collective. `decomp` (the stepper's rank grid) must outlive the writer: the writer fills
  // one high ghost layer of its host copies over it, for the wall nodes and the cell centres.
  FieldWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model,
              const comm::CartDecomposition& decomp, io::Provenance provenance, bool openpmd = false);
  ~FieldWriter();
  FieldWriter(const FieldWriter&) = delete;  // series_ points into model_
  FieldWriter& operator=(const FieldWriter&) = delete;

  // Collective.
  void write(Stepper& stepper);
  // After a restart at `step`: the series lists every file of it on disk, in step order
  // (those of the earlier run after `step` too: they stay until the restart rewrites them).
  void resume(std::int64_t step);

  std::filesystem::path file_for(const VolumeSpec& v, std::int64_t step) const;

 private:
  struct Series {
    const VolumeSpec* spec;
    XdmfSeries xdmf;
  };
  // This rank's samples [first, first + count) of `samples` cells lo + m stride along each
  // axis, with the node on the high wall (global index cells) when `wall`.
  void local_range(const VolumeSpec& v, const Index3& samples, bool wall, Index3& first, Index3& count) const;
  template <class Visit>
  void for_each_sample(const VolumeSpec& v, const Index3& first, const Index3& count, Visit&& visit) const;
  void write_staggered(const Series& s, const io::Group& root, double t);
  void write_collocated(const Series& s, const io::Group& root, double t);
  // Component c at the centre of local cell (i, j, k), from host_ (ghosts filled).
  float centred(int c, std::int64_t i, std::int64_t j, std::int64_t k) const;
  void write_xdmf(const Series& s) const;
  // The volume's openPMD file of this step: meshes E and H (field_openpmd.cpp).
  void write_openpmd(const Series& s, std::int64_t step, double t);

  comm::Context& ctx_;
  std::filesystem::path dir_;
  Model model_;
  LocalDomain domain_;
  Layout layout_;
  std::vector<Series> series_;
  std::vector<int> needed_;                   // components any output reads, in exchange order
  std::vector<std::vector<float>> host_;      // while writing, per component: the engine's array, ghosts filled
  std::unique_ptr<comm::Transport> transport_;
  std::unique_ptr<comm::HaloExchange> halo_;  // high ghosts, edges included, of needed_
  io::Provenance provenance_;
  bool openpmd_ = false;
};

}  // namespace tessera::fdtd
