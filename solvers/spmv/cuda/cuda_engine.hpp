#pragma once
// The cuda engine (cuda/cuda_engine.cu): every variant of backend.hpp on one GPU, on its own
// stream, plus cuSPARSE's default CSR SpMV as the `cusparse` variant. Only in CUDA builds.
#include <memory>

#include "solvers/spmv/backend.hpp"

namespace tessera::spmv {

template <class T>
std::unique_ptr<Engine<T>> make_cuda_engine(const EngineOptions& options);

}  // namespace tessera::spmv
