// Look-back candidates by name (kernels.hpp), for the benchmark and the tests.
#include "solvers/scan/cuda/lookback_candidates.cuh"

namespace tessera::scan::gpu {
namespace {

template <class T>
const std::vector<LookbackCandidate<T>>& table() {
  if constexpr (std::is_same_v<T, std::int32_t>) return lookback_candidates_int32();
  else if constexpr (std::is_same_v<T, std::int64_t>) return lookback_candidates_int64();
  else if constexpr (std::is_same_v<T, float>) return lookback_candidates_float();
  else return lookback_candidates_double();
}

}  // namespace

template <class T>
std::vector<std::string> lookback_candidates() {
  std::vector<std::string> names;
  for (const auto& c : table<T>()) names.push_back(c.name);
  return names;
}

template <class T>
bool lookback_candidate_scan(const std::string& name, const T* in, T* out, std::int64_t n, Mode mode, T offset,
                             LookbackWorkspace& ws, stream_t stream) {
  for (const auto& c : table<T>()) {
    if (c.name != name) continue;
    c.scan(in, out, n, mode, offset, ws, stream);
    return true;
  }
  return false;
}

#define TESSERA_SCAN_INSTANTIATE(T)                                                                        \
  template std::vector<std::string> lookback_candidates<T>();                                              \
  template bool lookback_candidate_scan<T>(const std::string&, const T*, T*, std::int64_t, Mode, T,        \
                                           LookbackWorkspace&, stream_t);
TESSERA_SCAN_INSTANTIATE(std::int32_t)
TESSERA_SCAN_INSTANTIATE(std::int64_t)
TESSERA_SCAN_INSTANTIATE(float)
TESSERA_SCAN_INSTANTIATE(double)
#undef TESSERA_SCAN_INSTANTIATE

}  // namespace tessera::scan::gpu
