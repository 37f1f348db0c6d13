// Look-back candidates for int64 (see lookback_candidates.cuh for the names); the first is the
// current default. p16 packs status and value into one 16-byte word.
#include "solvers/scan/cuda/lookback_candidates.cuh"

namespace tessera::scan::gpu {
using namespace candidate_terms;

const std::vector<LookbackCandidate<std::int64_t>>& lookback_candidates_int64() {
  static const auto table = candidates_of<std::int64_t,
      // the default: bulk copies, 128 x 32, packed 16-byte status
      CL<128, 16, B, 1, p16>,
      // registers (128 x 16 was the default until 2026-11-22)
      CL<128, 8>, CL<128, 8, R, 1, p16>, CL<128, 12, R, 1, p16>, CL<256, 8, R, 1, p16>, CL<128, 8, R, 1, p16, ldcs, stcs>,
      // bulk copies, one tile per block
      CL<128, 8, B>, CL<128, 8, B, 1, p16>,
      // bulk copies, persistent blocks
      CL<128, 8, P, 3>, CL<128, 8, P, 3, p16>, CL<128, 16, P, 2, p16>, CL<128, 16, P, 3, p16>, CL<256, 8, P, 3, p16>>();
  return table;
}

}  // namespace tessera::scan::gpu
