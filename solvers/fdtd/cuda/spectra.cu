// The cuda engine's plane-wave sheets and running DFTs ([[fdtd.plane_wave]], [[fdtd.dft]],
// [[fdtd.flux]]): kernels and their launches. See cuda_engine.hpp.
#include <stdexcept>

#include "core/cuda_check.hpp"
#include "solvers/fdtd/cuda/box_launch.cuh"
#include "solvers/fdtd/cuda/cuda_engine.hpp"

namespace tessera::fdtd {
using namespace cuda_detail;
namespace {

// ---- plane-wave sheets and running DFTs ----

__global__ void sheet_cells(float* e, const MaterialIndex* mat, const Material* table, bool uniform, int axis,
                            float k, Layout l, BoxArgs b) {
  int i, j, kk;
  std::int64_t flat;
  if (!plane_cell(b, i, j, kk, flat)) return;
  const std::int64_t c = l.at(i, j, kk);
  const Material m = table[uniform ? 0 : mat[c]];
  e[c] = sheet_step(e[c], axis == 0 ? m.cbx : axis == 1 ? m.cby : m.cbz, k);
}

// kDftBatch (steps per accumulation kernel, at most) and kDftSampleBytes (per region: a plane
// batches fully, a volume less) are in backend.hpp, for the memory estimate.
constexpr int kDftFreqChunk = 32;  // frequencies whose batch phasors sit in shared memory at once

// One step's samples of a region: field values (float32) into row `slot` of the batch.
__global__ void dft_sample(const float* __restrict__ field, float* __restrict__ samples, Layout l, BoxArgs b,
                           std::int64_t cells, int slot) {
  int i, j, k;
  std::int64_t flat;
  if (!plane_cell(b, i, j, k, flat)) return;
  samples[std::int64_t(slot) * cells + flat] = field[l.at(i, j, k)];
}

// The batch into the accumulators: one thread per node (x fastest: coalesced samples and,
// frequency-major, coalesced accumulators), its `count` samples in registers; per chunk of
// frequencies the batch's phasors go to shared memory (count x chunk x 2 doubles, 16 KiB), and
// each accumulator adds its terms in step order, as a per-step accumulation would.
__global__ void __launch_bounds__(kThreads)
    dft_batch(const float* __restrict__ samples, const double* __restrict__ phasors, double* __restrict__ acc,
              BoxArgs b, std::int64_t cells, int nfreq, int count) {
  __shared__ double ph[kDftBatch][kDftFreqChunk][2];
  int i, j, k;
  std::int64_t flat;
  const bool active = plane_cell(b, i, j, k, flat);
  float v[kDftBatch];
#pragma unroll
  for (int s = 0; s < kDftBatch; ++s) v[s] = active && s < count ? samples[std::int64_t(s) * cells + flat] : 0.0f;
  for (int f0 = 0; f0 < nfreq; f0 += kDftFreqChunk) {
    const int nf = min(kDftFreqChunk, nfreq - f0);
    __syncthreads();  // the previous chunk's phasors are no longer read
    for (int t = int(threadIdx.x); t < count * nf * 2; t += int(blockDim.x)) {
      const int s = t / (nf * 2), r = t % (nf * 2);
      ph[s][r / 2][r % 2] = phasors[(std::int64_t(s) * nfreq + f0 + r / 2) * 2 + r % 2];
    }
    __syncthreads();
    if (!active) continue;
    for (int f = 0; f < nf; ++f) {
      double* a = acc + 2 * std::int64_t(f0 + f) * cells + flat;
      double re = a[0], im = a[cells];
#pragma unroll
      for (int s = 0; s < kDftBatch; ++s)
        if (s < count) {
          re = dft_add(re, double(v[s]), ph[s][f][0]);
          im = dft_add(im, double(v[s]), ph[s][f][1]);
        }
      a[0] = re;
      a[cells] = im;
    }
  }
}

}  // namespace

void CudaEngine::add_sheet(int component, int axis, std::int64_t layer, float k) {
  Box plane = domain_.local();
  plane.lo[axis] = layer;
  plane.hi[axis] = layer + 1;
  if (plane.empty()) return;
  sheet_cells<<<plane_grid(plane), kThreads, 0, compute_>>>(base_[component], mat_base(),
                                                            table_.data(), uniform_, axis, k, layout_,
                                                            box_args(plane));
  TESSERA_CUDA_CHECK_LAUNCH();
}

int CudaEngine::add_dft(const DftRegion& r) {
  for (int a = 0; a < 3; ++a)
    if (r.box.lo[a] < -1 || r.box.hi[a] > domain_.n[a] || r.box.empty())
      throw std::logic_error("CudaEngine::add_dft: region outside the local grid");
  Dft d;
  d.region = r;
  d.acc = DeviceBuffer<double>(static_cast<std::size_t>(r.elements()));
  // The sample buffer holds `batch` steps of the region within kDftSampleBytes (a 512^2 plane:
  // all 32; a large volume: fewer, down to 1, i.e. an accumulation every step).
  d.batch = dft_batch_steps(r.box.cells());
  d.samples = DeviceBuffer<float>(static_cast<std::size_t>(d.batch * r.box.cells()));
  d.phasors = DeviceBuffer<double>(static_cast<std::size_t>(kDftBatch) * static_cast<std::size_t>(r.nfreq) * 2);
  d.host_phasors.assign(d.phasors.size(), 0.0);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(d.acc.data(), 0, d.acc.bytes(), compute_));
  dft_.push_back(std::move(d));
  return static_cast<int>(dft_.size()) - 1;
}

void CudaEngine::accumulate_dft(int id, std::span<const double> re, std::span<const double> im) {
  Dft& d = dft_.at(static_cast<std::size_t>(id));
  const int nf = d.region.nfreq;
  if (static_cast<int>(re.size()) != nf || static_cast<int>(im.size()) != nf)
    throw std::logic_error("CudaEngine::accumulate_dft: phasor count differs from the region's");
  const Box& b = d.region.box;
  dft_sample<<<plane_grid(b), kThreads, 0, compute_>>>(base_[d.region.component], d.samples.data(), layout_,
                                                       box_args(b), b.cells(), d.pending);
  TESSERA_CUDA_CHECK_LAUNCH();
  double* p = d.host_phasors.data() + std::size_t(d.pending) * std::size_t(nf) * 2;
  for (int f = 0; f < nf; ++f) {
    p[2 * f] = re[static_cast<std::size_t>(f)];
    p[2 * f + 1] = im[static_cast<std::size_t>(f)];
  }
  if (++d.pending == d.batch) flush_dft(d);
}

void CudaEngine::flush_dft(Dft& d) {
  if (d.pending == 0) return;
  // Synchronous upload (to_device): the host phasors are reused by the next batch.
  to_device(d.phasors.data(), d.host_phasors.data(),
            std::size_t(d.pending) * std::size_t(d.region.nfreq) * 2 * sizeof(double), compute_);
  const Box& b = d.region.box;
  dft_batch<<<plane_grid(b), kThreads, 0, compute_>>>(d.samples.data(), d.phasors.data(), d.acc.data(), box_args(b),
                                                      b.cells(), d.region.nfreq, d.pending);
  TESSERA_CUDA_CHECK_LAUNCH();
  d.pending = 0;
}

void CudaEngine::download_dft(int id, std::span<double> host) {
  Dft& d = dft_.at(static_cast<std::size_t>(id));
  if (host.size() != d.acc.size()) throw std::logic_error("CudaEngine::download_dft: size mismatch");
  flush_dft(d);
  to_host(host.data(), d.acc.data(), d.acc.bytes(), compute_);
}

void CudaEngine::upload_dft(int id, std::span<const double> host) {
  Dft& d = dft_.at(static_cast<std::size_t>(id));
  if (host.size() != d.acc.size()) throw std::logic_error("CudaEngine::upload_dft: size mismatch");
  flush_dft(d);
  to_device(d.acc.data(), host.data(), d.acc.bytes(), compute_);
}

}  // namespace tessera::fdtd
