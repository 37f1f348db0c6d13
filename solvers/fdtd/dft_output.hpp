#pragma once
// [[fdtd.dft]] outputs: <dir>/<name>_dft.h5, rewritten whole (io::OutputFile) at every output
// step and at the end of the run, and one XDMF file per frequency, <name>_dft_f<index>.xmf.
//
//   /frequencies       (nfreq) Hz
//   /<C>_re, /<C>_im   (nfreq, nz, ny, nx) float64 per chosen component C: the running
//                      transform X(f) = sum_n x(t_n) exp(-i 2 pi f t_n) every dt
//                      (spectra.hpp), element [f, k, j, i] at node (i, j, k) of the region,
//                      units V s/m (E) or A s/m (H), attributes origin, spacing (m, x y z)
// Root attributes: step, time, dt, every, cells, first_cell, and the provenance.
// The XDMF file of frequency f holds one grid per component (each on its own Yee nodes, like a
// staggered volume) with the arrays <C>_re and <C>_im of that frequency: open it with
// ParaView's XDMF Reader.
#include <filesystem>
#include <string>

#include "comm/context.hpp"
#include "io/provenance.hpp"
#include "solvers/fdtd/stepper.hpp"

namespace tessera::fdtd {

class DftWriter {
 public:
  DftWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model, io::Provenance provenance);
  // Collective.
  void write(Stepper& stepper);
  std::filesystem::path file_for(const DftSpec& spec) const { return dir_ / (spec.name + "_dft.h5"); }
  bool empty() const { return model_.dfts.empty(); }

 private:
  comm::Context& ctx_;
  std::filesystem::path dir_;
  Model model_;
  io::Provenance provenance_;
  bool xdmf_written_ = false;
};

// The XDMF text of frequency `f` of monitor `spec` (its HDF5 file is `file`, relative).
std::string dft_xdmf_text(const DftSpec& spec, const Model& model, std::size_t f, const std::string& file);

}  // namespace tessera::fdtd
