#pragma once
// Field outputs ([[fdtd.volume]]): at each output step, one HDF5 file per volume,
// <dir>/<name>_<step, 8 digits>.h5, with one dataset per component at its global (sampled)
// size (h5py: f["Ez"][k, j, i]), and <dir>/<name>.xmf describing every output so far.
// E is at t = step dt, H at t - dt/2 (file attributes "time" and "time_h"). Each dataset has
// its `units` (V/m, A/m), the root the provenance attributes (io/units.hpp, io/provenance.hpp).
// Files are written under a temporary name and renamed when complete, so a failed write never
// replaces a good file.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "comm/context.hpp"
#include "io/provenance.hpp"
#include "solvers/fdtd/stepper.hpp"
#include "solvers/fdtd/xdmf.hpp"

namespace tessera::fdtd {

class FieldWriter {
 public:
  FieldWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model, const LocalDomain& domain,
              io::Provenance provenance);
  FieldWriter(const FieldWriter&) = delete;  // series_ points into model_
  FieldWriter& operator=(const FieldWriter&) = delete;

  // Collective.
  void write(Stepper& stepper);
  // After a restart at `step`: the series lists the files of earlier outputs still on disk.
  void resume(std::int64_t step);

  std::filesystem::path file_for(const VolumeSpec& v, std::int64_t step) const;

 private:
  struct Series {
    const VolumeSpec* spec;
    Index3 local_first{}, local_count{};  // this rank's samples (global sample indices)
    XdmfSeries xdmf;
  };
  void write_xdmf(const Series& s) const;

  comm::Context& ctx_;
  std::filesystem::path dir_;
  Model model_;
  LocalDomain domain_;
  std::vector<Series> series_;
  io::Provenance provenance_;
};

}  // namespace tessera::fdtd
