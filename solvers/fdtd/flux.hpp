#pragma once
// Flux spectra of the [[fdtd.flux]] planes, and flux.h5.
//
// For a plane with normal a at E-node layer L ((p, q) = (a+1, a+2) mod 3), from the running
// DFTs (spectra.hpp: E and H each at their own times, so no further phase is needed):
//
//   P(f) = weight * 1/2 Re sum_cells [ E_p conj(<H_q>) - E_q conj(<H_p>) ] d_p d_q,
//   <H> = (H(layer L - 1) + H(layer L)) / 2,  the H half a cell below and above the plane.
//
// Space: in the plane the Yee grid already pairs the components of each product on one node:
// E_p and H_q both sit at (i + 1/2, j) of the transverse cell, E_q and H_p at (i, j + 1/2),
// each node standing for one face d_p d_q; only H's half-cell offset along the normal needs
// averaging. This is the discrete Poynting flux of the Yee scheme's own energy balance, and it
// needs no value from a neighbouring rank (averaging every component onto the face centres
// would smooth over a cell and read across rank boundaries).
//
// Sums over cells and ranks are exact (an integer fixed-point sum of each term, see
// ExactSum), so the flux has the same bits for every decomposition.
//
// flux.h5 (rewritten whole, through io::OutputFile, at every output step and at the end; the
// root attribute "planes" lists the planes' names):
//   /<name>            a table (io::TimeSeries) with columns frequency (Hz), flux (J/Hz), one
//                      row per frequency; attributes step, time, axis, position (m), weight
//   /dft/<name>/<C>    the plane's DFT accumulators of its four components (spectra_io.hpp),
//                      which a later run with `subtract = "<this file>"` removes first
// Units: the transforms are in V s/m and A s/m, so P(f) is in J/Hz: the energy that crossed
// the plane is 4 * integral_0^inf P(f) df (Parseval for a real signal, with the 1/2).
#include <cstdint>
#include <filesystem>
#include <vector>

#include "comm/context.hpp"
#include "io/provenance.hpp"
#include "solvers/fdtd/stepper.hpp"

namespace tessera::fdtd {

// A sum of doubles whose result does not depend on their order or on how they are split
// over ranks: each term is cut into three integer limbs of a fixed point scaled to the
// largest term (2^-110 of it: smaller bits are dropped, the same way wherever the term is);
// integer sums are associative, and the total is normalised before it is turned back.
class ExactSum {
 public:
  explicit ExactSum(double max_abs);  // the largest |term| over every rank (allreduce max)
  void add(double term);
  // Collective over the ranks of ctx (null: this process alone): sum of every rank's terms.
  static std::vector<double> allreduce(comm::Context* ctx, std::vector<ExactSum>& sums);

 private:
  int exponent_ = 0;  // terms scaled by 2^-exponent_ lie below 1
  bool zero_ = true;
  std::int64_t limb_[3] = {0, 0, 0};
  std::int64_t count_ = 0;
  void normalise();
};

// The DFT fields of one plane to subtract (another run's), this rank's blocks.
struct FluxReference {
  std::vector<std::vector<double>> blocks;  // E_p, E_q, H_p, H_q, as Spectra::download gives
};

// Collective over ctx (null: a serial run, e.g. make_serial_stepper's): the flux spectrum of
// plane `i` of the model, one value per frequency; `minus`: DFT fields to subtract first.
std::vector<double> flux_spectrum(comm::Context* ctx, const Model& model, std::size_t i, const DftMonitor& m,
                                  Engine& engine, const FluxReference* minus);

class FluxLog {
 public:
  // Collective. Reads the `subtract` files of the planes that name one (InputError naming the
  // file and plane when it does not match: another grid, plane or frequencies).
  FluxLog(comm::Context& ctx, std::filesystem::path file, const Model& model, io::Provenance provenance,
          Stepper& stepper);
  // Collective: rewrites flux.h5 with the spectra so far.
  void write(Stepper& stepper);
  bool empty() const { return model_.fluxes.empty(); }
  const std::filesystem::path& file() const { return file_; }

 private:
  comm::Context& ctx_;
  std::filesystem::path file_;
  Model model_;
  io::Provenance provenance_;
  std::vector<std::unique_ptr<FluxReference>> minus_;  // per plane, null when none
};

}  // namespace tessera::fdtd
