// seed_variants.hpp in a build without CUDA: there are no device variants to run.
#include <stdexcept>

#include "solvers/fdtd/cuda/seed_variants.hpp"

namespace tessera::fdtd {

std::vector<SeedVariant> seed_variants(const Index3&) { return {}; }
void run_seed_variant(Engine&, int) { throw std::logic_error("the seed variants need CUDA"); }

}  // namespace tessera::fdtd
