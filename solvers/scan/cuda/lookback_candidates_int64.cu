// Look-back candidates for int64 (see lookback_candidates.cuh for the names); the first is the
// current default. p16 packs status and value into one 16-byte word.
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

// Rows of 16 bytes: items per thread = 2 x rows.
template <int Threads, int Rows, Engine E = R, int Stages = 1, StateLayout L = split, LoadHint Ld = nc,
          StoreHint St = wb>
using C = LookbackPolicy<Threads, Rows, E, Stages, Ld, St, tk, 32, 512, L>;

}  // namespace

const std::vector<LookbackCandidate<std::int64_t>>& lookback_candidates_int64() {
  static const auto table = candidates_of<std::int64_t,
      // the default: bulk copies, 128 x 32, packed 16-byte status
      C<128, 16, B, 1, p16>,
      // registers (128 x 16 was the default until 2026-11-22)
      C<128, 8>, C<128, 8, R, 1, p16>, C<128, 12, R, 1, p16>, C<256, 8, R, 1, p16>, C<128, 8, R, 1, p16, ldcs, stcs>,
      // bulk copies, one tile per block
      C<128, 8, B>, C<128, 8, B, 1, p16>,
      // bulk copies, persistent blocks
      C<128, 8, P, 3>, C<128, 8, P, 3, p16>, C<128, 16, P, 2, p16>, C<128, 16, P, 3, p16>, C<256, 8, P, 3, p16>>();
  return table;
}

}  // namespace tessera::scan::gpu
