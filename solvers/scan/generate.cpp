#include "solvers/scan/generate.hpp"

namespace tessera::scan {

template <class T>
void generate_values(T* out, std::int64_t count, std::int64_t first, const Generator& gen) {
#pragma omp parallel for schedule(static) if (count > (1 << 16))
  for (std::int64_t j = 0; j < count; ++j) out[j] = generated_value<T>(gen, first + j);
}

template void generate_values<std::int32_t>(std::int32_t*, std::int64_t, std::int64_t, const Generator&);
template void generate_values<std::int64_t>(std::int64_t*, std::int64_t, std::int64_t, const Generator&);
template void generate_values<float>(float*, std::int64_t, std::int64_t, const Generator&);
template void generate_values<double>(double*, std::int64_t, std::int64_t, const Generator&);

}  // namespace tessera::scan
