#pragma once
// The split kernel's launcher (forces_split.cu), called by forces_cuda() for
// KernelVariant::split. Internal to the cuda backend.
#include "solvers/nbody/forces.hpp"

namespace tessera::nbody {

#if defined(TESSERA_HAVE_CUDA)
// `config` is checked and resolved (split > 0). Needs a.partials with partials_needed() entries.
template <class T>
void launch_split(const ForceArgs<T>& a, const KernelConfig& config, stream_t stream);

// What the compiler and the device made of a shape (force-only kernel): registers per thread
// and blocks an SM holds at once, of the general kernel or of the one for a common mass. For
// the benchmark's notes.
struct SplitKernelInfo {
  int registers = 0;
  int resident_blocks = 0;
};
template <class T>
SplitKernelInfo split_kernel_info(const KernelConfig& config, bool common_mass);
#endif

}  // namespace tessera::nbody
