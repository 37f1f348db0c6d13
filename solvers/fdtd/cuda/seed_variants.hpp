#pragma once
// The launch mappings of the seed study (seeds/004), kept as named variants of the bulk H and E
// updates for `tessera bench fdtd`. They evaluate the same yee.hpp formulas on the same arrays
// as the cuda engine, so after the same steps their fields equal the engine's bit for bit.
//   seed_blocked  a grid of Bs blocks of Ts threads; each thread walks its own small box of
//                 cells (x innermost), boxes of neighbouring threads far apart in memory
//   seed_zcolumn  one thread per (x, y) column marching over all z (the paper's 2nd approach,
//                 with x across the warp, as x is fastest in memory here)
//   seed_flat     the grid as one flat array: each block a contiguous range, threads striding
//                 through it (the seed's "coalesced" mapping)
#include <string>
#include <vector>

#include "solvers/fdtd/backend.hpp"

namespace tessera::fdtd {

struct SeedVariant {
  std::string name;
  std::string launch;  // the seed's notation, e.g. "-g 512 512 2 -b 1 1 64"
};

// The variants for a grid of n cells (launch shapes scale with n as in the seed).
std::vector<SeedVariant> seed_variants(const Index3& n);
// One H and one E update of the whole local box of a cuda engine with variant v (queued on its
// compute stream). Throws std::logic_error for a cpu engine or in a build without CUDA.
void run_seed_variant(Engine& engine, int v);

}  // namespace tessera::fdtd
