#pragma once
// The stepper's state in a checkpoint: E(n), H(n-1/2) and the CPML psi arrays, each a global
// dataset (fields/Ex ..., cpml/<face>/psi0..3) written with its checksum, so a checkpoint of
// P ranks restarts on any Q bit for bit. The grid, time step and PML are stored as attributes
// and must match the deck of the restart.
#include "io/checkpoint.hpp"
#include "solvers/fdtd/stepper.hpp"

namespace tessera::fdtd {

void write_state(io::CheckpointWriter& out, Stepper& stepper);
// The step count comes from the manifest; InputError when the checkpoint's grid, time step or
// PML differ from the stepper's model.
void read_state(io::CheckpointReader& in, Stepper& stepper);

}  // namespace tessera::fdtd
