#pragma once
// The registry of look-back candidates: a candidate is a LookbackPolicy, named after what it
// sets (so a name says which policy to make the default):
//
//   ENGINE-THREADSxITEMS[-sSTAGES][-ldHINT][-stHINT][-bid][-spin|-pollA-B][-p16]
//   ENGINE  reg (registers), bulk (TMA, one tile per block), pipe (TMA, persistent blocks)
//   ITEMS   per thread (rows x 16 bytes of elements); STAGES: tile buffers per persistent block
//   ld/st   cs (.cs), lu (.lu), ef (L1 no-allocate + L2 evict-first policy); default nc / wb
//   bid     tile = blockIdx.x instead of a ticket
//   spin    polls without sleeping; pollA-B: backoff from A to B ns (default 32-512)
//   p16     8-byte values: status and value in one 16-byte word (default: split flag + slots)
//
// lookback_candidates_<type>.cu list the candidates of each element type.
#include <string>
#include <vector>

#include "solvers/scan/cuda/lookback_kernels.cuh"

namespace tessera::scan::gpu {

// Short names for the candidate lists (lookback_candidates_<type>.cu only).
namespace candidate_terms {
constexpr auto R = TileLoader::registers;
constexpr auto B = TileLoader::bulk;
constexpr auto P = TileLoader::bulk_persistent;
constexpr auto nc = LoadHint::nc, ldcs = LoadHint::cs, ldlu = LoadHint::lu, ldef = LoadHint::evict_first;
constexpr auto wb = StoreHint::wb, stcs = StoreHint::cs, stef = StoreHint::evict_first;
constexpr auto tk = TileOrder::ticket, bid = TileOrder::block_index;
constexpr auto split = StateLayout::automatic, p16 = StateLayout::packed16;

// A candidate in the policy's own order (rows of 16 bytes: items per thread = rows x 16 bytes
// of elements), for the 4-byte lists that vary hints, tile order and polling.
template <int Threads, int Rows, TileLoader E = R, int Stages = 1, LoadHint L = nc, StoreHint S = wb, TileOrder O = tk,
          int First = 32, int Max = 512>
using C = LookbackPolicy<Threads, Rows, E, Stages, L, S, O, First, Max>;

// The same with the state layout right after the engine (the choice that matters for 8-byte
// values), the hints after it.
template <int Threads, int Rows, TileLoader E = R, int Stages = 1, StateLayout Layout = split, LoadHint L = nc,
          StoreHint S = wb>
using CL = LookbackPolicy<Threads, Rows, E, Stages, L, S, tk, 32, 512, Layout>;
}  // namespace candidate_terms

template <class T>
struct LookbackCandidate {
  std::string name;
  void (*scan)(const T*, T*, std::int64_t, Mode, T, LookbackWorkspace&, stream_t);
};

template <class P, class T>
std::string candidate_name() {
  std::string s = P::kEngine == TileLoader::registers ? "reg" : P::kEngine == TileLoader::bulk ? "bulk" : "pipe";
  s += "-" + std::to_string(P::kThreads) + "x" + std::to_string(TileShape<P, T>::kItems);
  if (P::kEngine == TileLoader::bulk_persistent) s += "-s" + std::to_string(P::kStages);
  constexpr const char* load[] = {"", "-ldcs", "-ldlu", "-ldef"};     // LoadHint order
  constexpr const char* store[] = {"", "-stcs", "-stef"};             // StoreHint order
  s += load[static_cast<int>(P::kLoad)];
  s += store[static_cast<int>(P::kStore)];
  if (P::kOrder == TileOrder::block_index) s += "-bid";
  if (P::kPollFirstNs == 0)
    s += "-spin";
  else if (P::kPollFirstNs != 32 || P::kPollMaxNs != 512)
    s += "-poll" + std::to_string(P::kPollFirstNs) + "-" + std::to_string(P::kPollMaxNs);
  if (sizeof(T) == 8 && P::kLayout == StateLayout::packed16) s += "-p16";
  return s;
}

template <class T, class... P>
std::vector<LookbackCandidate<T>> candidates_of() {
  return {LookbackCandidate<T>{candidate_name<P, T>(), &launch_lookback<P, T, T>}...};
}

// Defined in lookback_candidates_<type>.cu.
const std::vector<LookbackCandidate<std::int32_t>>& lookback_candidates_int32();
const std::vector<LookbackCandidate<std::int64_t>>& lookback_candidates_int64();
const std::vector<LookbackCandidate<float>>& lookback_candidates_float();
const std::vector<LookbackCandidate<double>>& lookback_candidates_double();

}  // namespace tessera::scan::gpu
