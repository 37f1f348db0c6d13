// Look-back candidates for float and double (see lookback_candidates.cuh for the names): the
// engines of the int32 and int64 candidates, so that whichever wins there can become the
// floating-point default already tested. The first of each is the current default.
#include "solvers/scan/cuda/lookback_candidates.cuh"

namespace tessera::scan::gpu {
namespace {

constexpr auto R = Engine::registers;
constexpr auto B = Engine::bulk;
constexpr auto P = Engine::bulk_persistent;
constexpr auto nc = LoadHint::nc, ldcs = LoadHint::cs;
constexpr auto wb = StoreHint::wb, stcs = StoreHint::cs;
constexpr auto tk = TileOrder::ticket;
constexpr auto split = StateLayout::automatic, p16 = StateLayout::packed16;

template <int Threads, int Rows, Engine E = R, int Stages = 1, StateLayout L = split, LoadHint Ld = nc,
          StoreHint St = wb>
using C = LookbackPolicy<Threads, Rows, E, Stages, Ld, St, tk, 32, 512, L>;

}  // namespace

const std::vector<LookbackCandidate<float>>& lookback_candidates_float() {
  static const auto table = candidates_of<float, C<256, 16, B>, C<128, 6>, C<128, 8>, C<128, 8, R, 1, split, ldcs, stcs>,
                                          C<128, 8, B>, C<128, 16, B>, C<128, 8, P, 2>, C<128, 8, P, 3>,
                                          C<128, 16, P, 2>>();
  return table;
}

const std::vector<LookbackCandidate<double>>& lookback_candidates_double() {
  static const auto table = candidates_of<double, C<128, 16, B, 1, p16>, C<128, 8>, C<128, 8, R, 1, p16>, C<128, 8, B, 1, p16>,
                                          C<128, 8, P, 3, p16>, C<128, 16, P, 2, p16>>();
  return table;
}

}  // namespace tessera::scan::gpu
