// The cuda engine's dispersive-material arrays and TFSF corrections (the dispersive E update
// itself is in cuda_engine.cu, inside the E kernels).
#include <stdexcept>

#include "core/cuda_check.hpp"
#include "solvers/fdtd/cuda/cuda_engine.hpp"

namespace tessera::fdtd {
using namespace cuda_detail;
namespace {

// TFSF corrections: one thread per term (each node once per list).
__global__ void tfsf_terms(FieldPtrs f, const TfsfTerm* __restrict__ terms, int n, const float* __restrict__ inc) {
  const int t = int(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const TfsfTerm x = terms[t];
  // Selected, not indexed: a dynamic index into the parameter struct would copy it to the stack.
  const int c = x.component;
  float* a = c == 0 ? f.e[0] : c == 1 ? f.e[1] : c == 2 ? f.e[2] : c == 3 ? f.h[0] : c == 4 ? f.h[1] : f.h[2];
  float v = tfsf_step(a[x.index], x.w0, inc[x.u0]);
  if (x.u1 >= 0) v = tfsf_step(v, x.w1, inc[x.u1]);
  a[x.index] = v;
}

}  // namespace

void CudaEngine::set_tfsf(std::span<const TfsfTerm> h_terms, std::span<const TfsfTerm> e_terms) {
  upload_vector(tfsf_[0], std::vector<TfsfTerm>(h_terms.begin(), h_terms.end()), compute_);
  upload_vector(tfsf_[1], std::vector<TfsfTerm>(e_terms.begin(), e_terms.end()), compute_);
}

void CudaEngine::apply_tfsf(bool electric, std::span<const float> inc) {
  const DeviceBuffer<TfsfTerm>& terms = tfsf_[electric ? 1 : 0];
  if (terms.empty()) return;
  if (tfsf_inc_.size() != inc.size()) {
    compute_.synchronize();
    tfsf_inc_ = DeviceBuffer<float>(inc.size());
  }
  // Synchronous (to_device): the host array changes at the next half step. A few KiB per half step.
  to_device(tfsf_inc_.data(), inc.data(), inc.size_bytes(), compute_);
  const int n = static_cast<int>(terms.size());
  tfsf_terms<<<blocks_for(n), kThreads, 0, compute_>>>(view().f, terms.data(), n, tfsf_inc_.data());
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::set_dispersion(const DispersionSetup& setup) {
  compute_.synchronize();
  disp_ = DispersionView{};
  for (auto& slot : pol_)
    for (auto& a : slot) a = DeviceBuffer<float>();
  if (!setup.active()) return;
  const auto cells = static_cast<std::size_t>(setup.box.cells());
  for (int s = 0; s < setup.slots; ++s)
    for (int c = 0; c < 3; ++c)
      for (int which = 0; which < (setup.lorentz[static_cast<std::size_t>(s)] ? 2 : 1); ++which) {
        DeviceBuffer<float>& a = pol_[static_cast<std::size_t>(which * kMaxPoles + s)][static_cast<std::size_t>(c)];
        a = DeviceBuffer<float>(cells);
        TESSERA_CUDA_CHECK(cudaMemsetAsync(a.data(), 0, a.bytes(), compute_));
        (which == 0 ? disp_.j : disp_.p)[s][c] = a.data();
      }
  upload_vector(disp_table_, setup.table, compute_);
  disp_.table = disp_table_.data();
  disp_.box = setup.box;
}

DeviceBuffer<float>& CudaEngine::polarisation(int slot, int which, int comp) {
  if (slot < 0 || slot >= kMaxPoles || which < 0 || which > 1 || comp < 0 || comp > 2)
    throw std::logic_error("CudaEngine::polarisation: no such array");
  return pol_[static_cast<std::size_t>(which * kMaxPoles + slot)][static_cast<std::size_t>(comp)];
}

void CudaEngine::download_polarisation(int slot, int which, int comp, std::span<float> host) {
  DeviceBuffer<float>& a = polarisation(slot, which, comp);
  if (host.size() != a.size()) throw std::logic_error("CudaEngine::download_polarisation: size mismatch");
  to_host(host.data(), a.data(), a.bytes(), compute_);
}

void CudaEngine::upload_polarisation(int slot, int which, int comp, std::span<const float> host) {
  DeviceBuffer<float>& a = polarisation(slot, which, comp);
  if (host.size() != a.size()) throw std::logic_error("CudaEngine::upload_polarisation: size mismatch");
  to_device(a.data(), host.data(), a.bytes(), compute_);
}

}  // namespace tessera::fdtd
