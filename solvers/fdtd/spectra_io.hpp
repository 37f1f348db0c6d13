#pragma once
// The accumulators of the running DFTs on disk, at their global size (so any rank count reads
// them back): one float64 dataset per monitor component, shape (2 nfreq, nz, ny, nx) in h5py
// order, element [2 f + part, k, j, i] the real (part 0) or imaginary (1) transform at node
// (i, j, k) of the component's array (DftBlock::array). Used by checkpoints, by flux.h5 (the
// fields a later run subtracts) and, split into _re and _im, by <name>_dft.h5.
#include <cstdint>
#include <span>
#include <string>

#include "io/h5_dataset.hpp"
#include "solvers/fdtd/spectra.hpp"

namespace tessera::fdtd {

// Collective: this rank's part `local` (d0 rows of the block `box` of `array`, each dense, x
// fastest) of a (d0, array extents) float64 dataset, with its checksum.
io::Dataset write_block_4d(const io::Group& g, const std::string& name, std::span<const double> local,
                           std::int64_t d0, const Box& array, const Box& box);
// Collective: reads and verifies it (the ranks' boxes must cover the array exactly once, as the
// writer's did, for the checksum to agree; boxes of several ranks on one node do not).
void read_block_4d(const io::Group& g, const std::string& name, std::span<double> local, std::int64_t d0,
                   const Box& array, const Box& box);

// Collective: every block of `m` as <prefix><component name> (2 nfreq rows).
void write_monitor(const io::Group& g, const std::string& prefix, const DftMonitor& m, Engine& engine);
void read_monitor(const io::Group& g, const std::string& prefix, const DftMonitor& m, Engine& engine);

}  // namespace tessera::fdtd
