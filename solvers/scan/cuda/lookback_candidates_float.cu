// Look-back candidates for float and double (see lookback_candidates.cuh for the names): the
// engines of the int32 and int64 candidates, so that whichever wins there can become the
// floating-point default already tested. The first of each is the current default.
#include "solvers/scan/cuda/lookback_candidates.cuh"

namespace tessera::scan::gpu {
using namespace candidate_terms;

const std::vector<LookbackCandidate<float>>& lookback_candidates_float() {
  static const auto table = candidates_of<float, CL<256, 16, B>, CL<128, 6>, CL<128, 8>, CL<128, 8, R, 1, split, ldcs, stcs>,
                                          CL<128, 8, B>, CL<128, 16, B>, CL<128, 8, P, 2>, CL<128, 8, P, 3>,
                                          CL<128, 16, P, 2>>();
  return table;
}

const std::vector<LookbackCandidate<double>>& lookback_candidates_double() {
  static const auto table = candidates_of<double, CL<128, 16, B, 1, p16>, CL<128, 8>, CL<128, 8, R, 1, p16>, CL<128, 8, B, 1, p16>,
                                          CL<128, 8, P, 3, p16>, CL<128, 16, P, 2, p16>>();
  return table;
}

}  // namespace tessera::scan::gpu
