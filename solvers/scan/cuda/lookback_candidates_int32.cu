// Look-back candidates for int32 (see lookback_candidates.cuh for the names). The issue's target
// (>= CUB at 2^26..2^30 on an H100) is measured on these; the first is the current default.
#include "solvers/scan/cuda/lookback_candidates.cuh"

namespace tessera::scan::gpu {
using namespace candidate_terms;

const std::vector<LookbackCandidate<std::int32_t>>& lookback_candidates_int32() {
  static const auto table = candidates_of<std::int32_t,
      // the default: bulk copies, 256 x 64
      C<256, 16, B>,
      // registers: shapes (128 x 24 was the default until 2026-11-22)
      C<128, 6>, C<128, 8>, C<128, 12>, C<256, 8>,
      // registers: streaming cache hints
      C<128, 6, R, 1, ldcs, stcs>, C<128, 8, R, 1, ldcs, stcs>, C<128, 8, R, 1, ldcs, wb>, C<128, 8, R, 1, nc, stcs>,
      C<128, 8, R, 1, ldef, stef>, C<128, 8, R, 1, ldlu, wb>,
      // registers: tile = blockIdx.x (no ticket before the loads)
      C<128, 6, R, 1, nc, wb, bid>, C<128, 8, R, 1, nc, wb, bid>, C<128, 12, R, 1, nc, wb, bid>,
      C<128, 8, R, 1, ldcs, stcs, bid>,
      // registers: look-back polling
      C<128, 8, R, 1, nc, wb, tk, 0, 0>, C<128, 8, R, 1, nc, wb, tk, 128, 2048>,
      // bulk copies, one tile per block
      C<128, 8, B>, C<128, 16, B>, C<256, 8, B>, C<128, 8, B, 1, nc, wb, bid>,
      C<128, 16, B, 1, nc, wb, bid>,
      C<128, 16, B, 1, ldef, stef>,
      // bulk copies, persistent blocks with 2..4 tile buffers
      C<128, 8, P, 2>, C<128, 8, P, 3>, C<128, 8, P, 4>, C<128, 16, P, 2>, C<128, 16, P, 3>, C<256, 8, P, 3>,
      C<256, 16, P, 2>, C<128, 8, P, 3, ldef, stef>, C<128, 16, P, 2, nc, wb, tk, 0, 0>>();
  return table;
}

}  // namespace tessera::scan::gpu
