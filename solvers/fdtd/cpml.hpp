#pragma once
// CPML slabs: the cells of each cpml face's slab that this rank holds, with the graded
// profiles along the slab axis. The auxiliary psi arrays exist only for these cells.
//
// Grading (depth u from 0 at the PML interface to 1 at the outer PEC wall):
//   sigma = sigma_max u^m,  kappa = 1 + (kappa_max - 1) u^m,  alpha = alpha_max (1 - u),
//   sigma_max = -(m + 1) ln(R0) / (2 eta0 L d)
//   b = exp(-(sigma / kappa + alpha) dt / eps0),  c = sigma (b - 1) / (kappa (sigma + kappa alpha))
#include <string>
#include <vector>

#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/params.hpp"
#include "solvers/fdtd/yee.hpp"

namespace tessera::fdtd {

struct CpmlSlab {
  int axis = 0, side = 0;       // side 0: low face, 1: high face
  Box global;                   // the whole slab, global cells
  Box local;                    // this rank's part, local cells (may be empty)
  std::vector<CpmlCoeffs> profile;  // per local cell along `axis`, local.lo[axis] first
  std::string name() const;     // "x_low", ...
};

// Every cpml slab of the model, in a fixed order (x low, x high, y low, ...), also those this
// rank holds nothing of (local empty), so every rank lists the same slabs.
std::vector<CpmlSlab> cpml_slabs(const Model& m, const LocalDomain& dom);

// The profile at a position along `axis` (in cells, global) for a slab: exposed for tests.
CpmlCoeffs cpml_coefficients(const Model& m, int axis, int side, double e_position, double h_position);

}  // namespace tessera::fdtd
