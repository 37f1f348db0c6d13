#include "solvers/spmv/backend.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "solvers/spmv/cpu/cpu_engine.hpp"
#if defined(TESSERA_HAVE_CUDA)
#include "solvers/spmv/cuda/cuda_engine.hpp"
#endif

namespace tessera::spmv {

template <class T>
std::unique_ptr<Engine<T>> make_engine(Backend backend, const EngineOptions& options) {
  if (backend == Backend::cuda) {
#if defined(TESSERA_HAVE_CUDA)
    return make_cuda_engine<T>(options);
#else
    throw InputError("this tessera was built without CUDA: run spmv with the cpu backend (--backend cpu)");
#endif
  }
  if (!runs_on_host(options.variant))
    throw InputError(fmt::format("spmv variant \"{}\" runs on a GPU (NVIDIA's cuSPARSE); the cpu engine runs "
                                 "csr-scalar, csr-vector, coo-segmented, hybrid, merge-path and csr-binned",
                                 to_string(options.variant)));
  return make_cpu_engine<T>(options);
}

template std::unique_ptr<Engine<float>> make_engine<float>(Backend, const EngineOptions&);
template std::unique_ptr<Engine<double>> make_engine<double>(Backend, const EngineOptions&);

}  // namespace tessera::spmv
