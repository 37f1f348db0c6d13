#pragma once
// TESSERA_CUDA_CHECK(call) throws tessera::CudaError naming the call, file and line.
// TESSERA_CUDA_CHECK_LAUNCH() checks the last kernel launch the same way.
#include "core/error.hpp"

#if defined(TESSERA_HAVE_CUDA)
#include <cuda_runtime.h>

namespace tessera::detail {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
}  // namespace tessera::detail

#define TESSERA_CUDA_CHECK(call)                                                  \
  do {                                                                            \
    const cudaError_t tessera_err_ = (call);                                      \
    if (tessera_err_ != cudaSuccess)                                              \
      ::tessera::detail::throw_cuda_error(tessera_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define TESSERA_CUDA_CHECK_LAUNCH() TESSERA_CUDA_CHECK(cudaGetLastError())
#endif
