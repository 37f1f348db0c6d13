// The cuda engine's kernels and their launches. See cuda_engine.hpp for the layout and mapping.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/cuda_check.hpp"
#include "solvers/fdtd/cuda/box_launch.cuh"
#include "solvers/fdtd/cuda/cuda_engine.hpp"

namespace tessera::fdtd {
using namespace cuda_detail;
namespace {

constexpr int kBlockX = 32, kBlockY = 8;  // bulk kernels: one warp per x row segment
constexpr int kEnergyBlocks = 1024;       // fixed, so the sum order is the same every call
constexpr int kMaxColumn = 16;            // longest z column per thread

// ---- bulk updates: x across the warp, a column of `kz` cells in z per thread ----

__global__ void __launch_bounds__(kBlockX* kBlockY)
    h_columns(float* __restrict__ hx, float* __restrict__ hy, float* __restrict__ hz, const float* __restrict__ ex,
              const float* __restrict__ ey, const float* __restrict__ ez, HCoeffs k, std::int64_t pitch,
              std::int64_t plane, BoxArgs b, int kz) {
  const int i = b.lo0 + int(blockIdx.x) * kBlockX + int(threadIdx.x);
  const int j = b.lo1 + int(blockIdx.y) * kBlockY + int(threadIdx.y);
  const int k0 = b.lo2 + int(blockIdx.z) * kz;
  if (i >= b.hi0 || j >= b.hi1) return;
  const int k1 = min(k0 + kz, b.hi2);
  std::int64_t c = (k0 + 1) * plane + (j + 1) * pitch + (i + 1);
  // E at k, carried up the column: the +z neighbour of one cell is the centre of the next.
  float ex_c = ex[c], ey_c = ey[c];
  for (int kk = k0; kk < k1; ++kk, c += plane) {
    const float ex_n = ex[c + plane], ey_n = ey[c + plane], ez_c = ez[c];
    hx[c] = curl_step_h(hx[c], k.cy, ez[c + pitch], ez_c, k.cz, ey_n, ey_c);
    hy[c] = curl_step_h(hy[c], k.cz, ex_n, ex_c, k.cx, ez[c + 1], ez_c);
    hz[c] = curl_step_h(hz[c], k.cx, ey[c + 1], ey_c, k.cy, ex[c + pitch], ex_c);
    ex_c = ex_n;
    ey_c = ey_n;
  }
}

// kDisp: cells of a material with poles also advance their ADE currents (dispersion.hpp) from
// the old E; the others are updated as without it.
template <bool kUniform, bool kDisp = false>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    e_columns(float* __restrict__ ex, float* __restrict__ ey, float* __restrict__ ez, const float* __restrict__ hx,
              const float* __restrict__ hy, const float* __restrict__ hz, const MaterialIndex* __restrict__ mat,
              const Material* __restrict__ table, std::int64_t pitch, std::int64_t plane, BoxArgs b, int kz,
              DispersionView disp = {}) {
  const int i = b.lo0 + int(blockIdx.x) * kBlockX + int(threadIdx.x);
  const int j = b.lo1 + int(blockIdx.y) * kBlockY + int(threadIdx.y);
  const int k0 = b.lo2 + int(blockIdx.z) * kz;
  if (i >= b.hi0 || j >= b.hi1) return;
  const int k1 = min(k0 + kz, b.hi2);
  std::int64_t c = (k0 + 1) * plane + (j + 1) * pitch + (i + 1);
  // H at k - 1, carried up the column: the -z neighbour of one cell is the centre of the last.
  float hx_m = hx[c - plane], hy_m = hy[c - plane];
  Material m = table[0];
  int mi = 0;
  // The poles of a uniform rank's material, loaded once (the table is small and read-only).
  DispersiveMaterial dmu;
  if (kDisp && kUniform) dmu = disp.table[0];
  for (int kk = k0; kk < k1; ++kk, c += plane) {
    if (!kUniform) {
      mi = mat[c];
      m = table[mi];
    }
    const float hx_c = hx[c], hy_c = hy[c], hz_c = hz[c];
    const float ex0 = ex[c], ey0 = ey[c], ez0 = ez[c];
    float nx = curl_step_e(ex0, m.ca, m.cby, hz_c, hz[c - pitch], m.cbz, hy_c, hy_m);
    float ny = curl_step_e(ey0, m.ca, m.cbz, hx_c, hx_m, m.cbx, hz_c, hz[c - 1]);
    float nz = curl_step_e(ez0, m.ca, m.cbx, hy_c, hy[c - 1], m.cby, hx_c, hx[c - pitch]);
    if (kDisp) {
      const DispersiveMaterial& dm = kUniform ? dmu : disp.table[mi];
      const std::int64_t d = dm.npoles > 0 ? dispersion_index(disp, i, j, kk) : -1;
      if (d >= 0) {
        nx = dispersive_e(ex0, nx, dm, disp, 0, d);
        ny = dispersive_e(ey0, ny, dm, disp, 1, d);
        nz = dispersive_e(ez0, nz, dm, disp, 2, d);
      }
    }
    ex[c] = nx;
    ey[c] = ny;
    ez[c] = nz;
    hx_m = hx_c;
    hy_m = hy_c;
  }
}

// The energy kernel strides over all cells: 64-bit.
__device__ __forceinline__ bool box_cell(const BoxArgs& b, std::int64_t t, int& i, int& j, int& k) {
  const std::int64_t ex = b.hi0 - b.lo0, ey = b.hi1 - b.lo1, ez = b.hi2 - b.lo2;
  if (t >= ex * ey * ez) return false;
  i = b.lo0 + int(t % ex);
  const std::int64_t r = t / ex;
  j = b.lo1 + int(r % ey);
  k = b.lo2 + int(r / ey);
  return true;
}

__global__ void h_cells(FieldPtrs f, HCoeffs k, Layout l, BoxArgs b) {
  int i, j, kk;
  std::int64_t flat;
  if (!plane_cell(b, i, j, kk, flat)) return;
  update_h_at(f, l.at(i, j, kk), l.pitch, l.plane(), k);
}

__global__ void e_cells(FieldPtrs f, const MaterialIndex* mat, const Material* table, bool uniform, Layout l,
                        BoxArgs b) {
  int i, j, kk;
  std::int64_t flat;
  if (!plane_cell(b, i, j, kk, flat)) return;
  const std::int64_t c = l.at(i, j, kk);
  update_e_at(f, c, l.pitch, l.plane(), table[uniform ? 0 : mat[c]]);
}

// e_cells with dispersive materials (the same arithmetic as e_columns<., true>).
__global__ void e_cells_dispersive(FieldPtrs f, const MaterialIndex* mat, const Material* table, bool uniform,
                                   Layout l, BoxArgs b, DispersionView disp) {
  int i, j, kk;
  std::int64_t flat;
  if (!plane_cell(b, i, j, kk, flat)) return;
  const std::int64_t c = l.at(i, j, kk), sy = l.pitch, sz = l.plane();
  const int mi = uniform ? 0 : mat[c];
  const Material m = table[mi];
  const float ex0 = f.e[0][c], ey0 = f.e[1][c], ez0 = f.e[2][c];
  float nx = curl_step_e(ex0, m.ca, m.cby, f.h[2][c], f.h[2][c - sy], m.cbz, f.h[1][c], f.h[1][c - sz]);
  float ny = curl_step_e(ey0, m.ca, m.cbz, f.h[0][c], f.h[0][c - sz], m.cbx, f.h[2][c], f.h[2][c - 1]);
  float nz = curl_step_e(ez0, m.ca, m.cbx, f.h[1][c], f.h[1][c - 1], m.cby, f.h[0][c], f.h[0][c - sy]);
  const DispersiveMaterial& dm = disp.table[mi];
  const std::int64_t d = dm.npoles > 0 ? dispersion_index(disp, i, j, kk) : -1;
  if (d >= 0) {
    nx = dispersive_e(ex0, nx, dm, disp, 0, d);
    ny = dispersive_e(ey0, ny, dm, disp, 1, d);
    nz = dispersive_e(ez0, nz, dm, disp, 2, d);
  }
  f.e[0][c] = nx;
  f.e[1][c] = ny;
  f.e[2][c] = nz;
}

// ---- CPML: one thread per slab cell; psi dense over the slab box ----

template <bool kElectric, int kAxis>
__global__ void cpml_cells(FieldPtrs f, float* __restrict__ psi_a, float* __restrict__ psi_b,
                           const CpmlCoeffs* __restrict__ profile, const MaterialIndex* mat, const Material* table,
                           bool uniform, float ch_a, Layout l, BoxArgs b) {
  int i, j, k;
  std::int64_t d;
  if (!plane_cell(b, i, j, k, d)) return;
  constexpr int p = (kAxis + 1) % 3, q = (kAxis + 2) % 3;
  const std::int64_t sa = kAxis == 0 ? 1 : kAxis == 1 ? l.pitch : l.plane();
  const std::int64_t c = l.at(i, j, k);
  const int along = kAxis == 0 ? i - b.lo0 : kAxis == 1 ? j - b.lo1 : k - b.lo2;
  const CpmlCoeffs pc = profile[along];
  if (kElectric) {
    const Material m = table[uniform ? 0 : mat[c]];
    const float cb_a = kAxis == 0 ? m.cbx : kAxis == 1 ? m.cby : m.cbz;
    const float dq = f.h[q][c] - f.h[q][c - sa];
    const float s0 = cpml_psi(psi_a[d], pc.be, pc.ce, dq);
    psi_a[d] = s0;
    f.e[p][c] = cpml_correct(f.e[p][c], -cb_a, pc.ke, dq, s0);
    const float dp = f.h[p][c] - f.h[p][c - sa];
    const float s1 = cpml_psi(psi_b[d], pc.be, pc.ce, dp);
    psi_b[d] = s1;
    f.e[q][c] = cpml_correct(f.e[q][c], cb_a, pc.ke, dp, s1);
  } else {
    const float dq = f.e[q][c + sa] - f.e[q][c];
    const float s2 = cpml_psi(psi_a[d], pc.bh, pc.ch, dq);
    psi_a[d] = s2;
    f.h[p][c] = cpml_correct(f.h[p][c], ch_a, pc.kh, dq, s2);
    const float dp = f.e[p][c + sa] - f.e[p][c];
    const float s3 = cpml_psi(psi_b[d], pc.bh, pc.ch, dp);
    psi_b[d] = s3;
    f.h[q][c] = cpml_correct(f.h[q][c], -ch_a, pc.kh, dp, s3);
  }
}

// ---- small kernels ----

// E (and H where `from` has it) of the box's cells from one copy of the fields into the other
// (fused_restore_e).
__global__ void copy_cells(FieldPtrs from, FieldPtrs to, Layout l, BoxArgs box) {
  int i, j, k;
  std::int64_t flat;
  if (!plane_cell(box, i, j, k, flat)) return;
  const std::int64_t c = l.at(i, j, k);
  for (int p = 0; p < 3; ++p) to.e[p][c] = from.e[p][c];
  if (from.h[0])
    for (int p = 0; p < 3; ++p) to.h[p][c] = from.h[p][c];
}

__global__ void zero_plane(float* a, float* b, Layout l, BoxArgs box) {
  int i, j, k;
  std::int64_t flat;
  if (!plane_cell(box, i, j, k, flat)) return;
  const std::int64_t c = l.at(i, j, k);
  a[c] = 0.0f;
  b[c] = 0.0f;
}

constexpr int kKicksPerLaunch = 32;
struct KickBatch {
  int count;
  Kick k[kKicksPerLaunch];
};

// One thread, in deck order: two sources on one node act in a fixed order.
__global__ void kick(FieldPtrs f, KickBatch batch) {
  for (int s = 0; s < batch.count; ++s) {
    float& v = f.e[batch.k[s].component][batch.k[s].index];
    v = batch.k[s].hard ? batch.k[s].value : v + batch.k[s].value;
  }
}

__global__ void save_node_e(FieldPtrs f, const NodeCoeffs* nodes, std::int64_t n, float* saved) {
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; q < n; q += std::int64_t(gridDim.x) * blockDim.x)
    saved[q] = f.e[nodes[q].component][nodes[q].index];
}

__global__ void apply_node_e(FieldPtrs f, const NodeCoeffs* nodes, std::int64_t n, const float* saved, Layout l) {
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; q < n; q += std::int64_t(gridDim.x) * blockDim.x) {
    const NodeCoeffs o = nodes[q];
    f.e[o.component][o.index] = node_e_at(f, o.index, l.pitch, l.plane(), o.component, saved[q], o.ca, o.c1, o.c2);
  }
}

__global__ void sample_nodes(FieldPtrs f, const Sample* samples, int n, float* out) {
  const int s = int(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const Sample x = samples[s];
  out[s] = x.component < 3 ? f.e[x.component][x.index] : f.h[x.component - 3][x.index];
}

__global__ void fill_random_cells(float* a, std::uint64_t seed, int component, Layout l, BoxArgs b, Index3 offset) {
  int i, j, k;
  std::int64_t flat;
  if (!plane_cell(b, i, j, k, flat)) return;
  a[l.at(i, j, k)] = random_field_value(seed, component, offset[0] + i, offset[1] + j, offset[2] + k);
}

__global__ void __launch_bounds__(kThreads)
    energy_sums(FieldPtrs f, const MaterialIndex* mat, const float* eps_r, bool uniform, HCoeffs k, Layout l,
                BoxArgs b, double* partials) {
  __shared__ double se[kThreads], sh[kThreads];
  double we = 0, wh = 0;
  const std::int64_t total = std::int64_t(b.hi0 - b.lo0) * (b.hi1 - b.lo1) * (b.hi2 - b.lo2);
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    int i, j, kk;
    box_cell(b, t, i, j, kk);
    const std::int64_t c = l.at(i, j, kk), sy = l.pitch, sz = l.plane();
    const float ex = f.e[0][c], ey = f.e[1][c], ez = f.e[2][c];
    we += (double(ex) * ex + double(ey) * ey + double(ez) * ez) * eps_r[uniform ? 0 : mat[c]];
    const float nx = curl_step_h(f.h[0][c], k.cy, f.e[2][c + sy], ez, k.cz, f.e[1][c + sz], ey);
    const float ny = curl_step_h(f.h[1][c], k.cz, f.e[0][c + sz], ex, k.cx, f.e[2][c + 1], ez);
    const float nz = curl_step_h(f.h[2][c], k.cx, f.e[1][c + 1], ey, k.cy, f.e[0][c + sy], ex);
    wh += double(f.h[0][c]) * nx + double(f.h[1][c]) * ny + double(f.h[2][c]) * nz;
  }
  se[threadIdx.x] = we;
  sh[threadIdx.x] = wh;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (int(threadIdx.x) < s) {
      se[threadIdx.x] += se[threadIdx.x + s];
      sh[threadIdx.x] += sh[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = se[0];
    partials[2 * blockIdx.x + 1] = sh[0];
  }
}

}  // namespace

namespace cuda_detail {

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// Host <-> device copies ordered on the compute stream and complete on return. (A plain
// cudaMemcpy runs on the legacy stream, which kernels on a non-blocking stream do not wait for,
// and from pageable memory it may return before the data has arrived.)
void to_device(void* dst, const void* src, std::size_t bytes, stream_t s) {
  if (bytes == 0) return;
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(s));
}

void to_host(void* dst, const void* src, std::size_t bytes, stream_t s) {
  if (bytes == 0) return;
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace cuda_detail

CudaEngine::CudaEngine(const LocalDomain& domain, const HCoeffs& ch) : Engine(domain, ch) {
  // Room for a z neighbour's planes (the blocked sweep across ranks): 1-2% of the arrays.
  deep_planes_ = blocked_deep_planes(domain_);
  lead_ = kLeadPad + deep_planes_ * layout_.plane();
  const std::size_t n = array_elements();
  for (int c = 0; c < kComponents; ++c) {
    store_[c] = DeviceBuffer<float>(n);
    TESSERA_CUDA_CHECK(cudaMemsetAsync(store_[c].data(), 0, store_[c].bytes(), compute_));
    base_[c] = store_[c].data() + lead_;
  }
  mat_store_ = DeviceBuffer<MaterialIndex>(n);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(mat_store_.data(), 0, mat_store_.bytes(), compute_));
  upload_vector(table_, std::vector<Material>{Material{}}, compute_);
  upload_vector(eps_r_, std::vector<float>{1.0f}, compute_);
  partials_ = DeviceBuffer<double>(2 * kEnergyBlocks);
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&halo_done_, cudaEventDisableTiming));
  int device = 0, sms = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  concurrent_blocks_ = std::max(1, sms) * (2048 / (kBlockX * kBlockY));
  compute_.synchronize();
}

CudaEngine::~CudaEngine() {
  if (ready_) (void)cudaEventDestroy(ready_);
  if (halo_done_) (void)cudaEventDestroy(halo_done_);
}

void CudaEngine::set_materials(std::span<const MaterialIndex> index, const MaterialTable& table, bool uniform) {
  if (static_cast<std::int64_t>(index.size()) != layout_.elements())
    throw std::logic_error("CudaEngine::set_materials: index size differs from the layout");
  to_device(mat_base(), index.data(), index.size_bytes(), compute_);
  upload_vector(table_, table.coeffs, compute_);
  upload_vector(eps_r_, table.eps_r, compute_);
  uniform_ = uniform;
}

void CudaEngine::set_cpml(const std::vector<CpmlSlab>& slabs) {
  compute_.synchronize();
  slabs_.clear();
  for (const CpmlSlab& s : slabs) {
    SlabState st;
    st.slab = s;
    for (auto& p : st.psi) {
      p = DeviceBuffer<float>(static_cast<std::size_t>(s.local.cells()));
      if (!p.empty()) TESSERA_CUDA_CHECK(cudaMemsetAsync(p.data(), 0, p.bytes(), compute_));
    }
    upload_vector(st.profile, s.profile, compute_);
    slabs_.push_back(std::move(st));
  }
}

void CudaEngine::set_overrides(std::span<const NodeCoeffs> nodes) {
  compute_.synchronize();
  upload_vector(nodes_, std::vector<NodeCoeffs>(nodes.begin(), nodes.end()), compute_);
  nnodes_ = static_cast<std::int64_t>(nodes.size());
  node_e_ = DeviceBuffer<float>(nodes.size());
}

void CudaEngine::save_override_e() {
  if (nnodes_ == 0) return;
  save_node_e<<<std::min(blocks_for(nnodes_), 65535u), kThreads, 0, compute_>>>(view().f, nodes_.data(), nnodes_,
                                                                               node_e_.data());
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::apply_override_e() {
  if (nnodes_ == 0) return;
  apply_node_e<<<std::min(blocks_for(nnodes_), 65535u), kThreads, 0, compute_>>>(view().f, nodes_.data(), nnodes_,
                                                                                node_e_.data(), layout_);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::set_samples(std::span<const Sample> samples, int max_rows) {
  compute_.synchronize();
  upload_vector(samples_, std::vector<Sample>(samples.begin(), samples.end()), compute_);
  nsamples_ = static_cast<int>(samples.size());
  max_rows_ = max_rows;
  rows_ = DeviceBuffer<float>(static_cast<std::size_t>(nsamples_) * static_cast<std::size_t>(max_rows));
}

void CudaEngine::download(int c, std::span<float> host) {
  if (static_cast<std::int64_t>(host.size()) != layout_.elements())
    throw std::logic_error("CudaEngine::download: host array size differs from the layout");
  to_host(host.data(), base_[c], host.size_bytes(), compute_);
}

void CudaEngine::upload(int c, std::span<const float> host) {
  if (static_cast<std::int64_t>(host.size()) != layout_.elements())
    throw std::logic_error("CudaEngine::upload: host array size differs from the layout");
  to_device(base_[c], host.data(), host.size_bytes(), compute_);
}

void CudaEngine::download_psi(int slab, int which, std::span<float> host) {
  auto& p = slabs_.at(slab).psi.at(which);
  if (host.size() != p.size()) throw std::logic_error("CudaEngine::download_psi: size mismatch");
  to_host(host.data(), p.data(), p.bytes(), compute_);
}

void CudaEngine::upload_psi(int slab, int which, std::span<const float> host) {
  auto& p = slabs_.at(slab).psi.at(which);
  if (host.size() != p.size()) throw std::logic_error("CudaEngine::upload_psi: size mismatch");
  to_device(p.data(), host.data(), p.bytes(), compute_);
}

void CudaEngine::fill_random(std::uint64_t seed) {
  const Box all = domain_.local();
  for (int c = 0; c < kComponents; ++c) {
    fill_random_cells<<<plane_grid(all), kThreads, 0, compute_>>>(base_[c], seed, c, layout_, box_args(all),
                                                                         domain_.offset);
    TESSERA_CUDA_CHECK_LAUNCH();
  }
}

DeviceView CudaEngine::view() const {
  return {{{base_[0], base_[1], base_[2]}, {base_[3], base_[4], base_[5]}},
          mat_base(),
          table_.data(),
          ch_,
          layout_,
          domain_.n,
          uniform_};
}

int CudaEngine::column_length(const Box& b) const {
  const std::int64_t xy_blocks = ((b.extent(0) + kBlockX - 1) / kBlockX) * ((b.extent(1) + kBlockY - 1) / kBlockY);
  // Enough z slices for about four waves of blocks, then the longest column up to kMaxColumn.
  const std::int64_t slices = std::max<std::int64_t>(1, (4 * concurrent_blocks_ + xy_blocks - 1) / xy_blocks);
  const std::int64_t kz = (b.extent(2) + slices - 1) / slices;
  return static_cast<int>(std::clamp<std::int64_t>(kz, 1, kMaxColumn));
}

void CudaEngine::update_h(const Box& b) {
  if (b.empty()) return;
  // A box thin in x or y would idle most of each warp: the generic mapping suits it better.
  if (b.extent(0) < kBlockX / 2 || b.extent(1) < kBlockY / 2) return update_h_generic(b);
  const int kz = column_length(b);
  const dim3 grid(unsigned((b.extent(0) + kBlockX - 1) / kBlockX), unsigned((b.extent(1) + kBlockY - 1) / kBlockY),
                  unsigned((b.extent(2) + kz - 1) / kz));
  h_columns<<<grid, dim3(kBlockX, kBlockY), 0, compute_>>>(base_[kHx], base_[kHy], base_[kHz], base_[kEx], base_[kEy],
                                                          base_[kEz], ch_, layout_.pitch, layout_.plane(), box_args(b),
                                                          kz);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::update_e(const Box& b) {
  if (b.empty()) return;
  if (b.extent(0) < kBlockX / 2 || b.extent(1) < kBlockY / 2) return update_e_generic(b);
  const int kz = column_length(b);
  const dim3 grid(unsigned((b.extent(0) + kBlockX - 1) / kBlockX), unsigned((b.extent(1) + kBlockY - 1) / kBlockY),
                  unsigned((b.extent(2) + kz - 1) / kz));
  const MaterialIndex* mat = mat_base();
  if (!intersect(b, disp_.box).empty()) {
    if (uniform_)
      e_columns<true, true><<<grid, dim3(kBlockX, kBlockY), 0, compute_>>>(
          base_[kEx], base_[kEy], base_[kEz], base_[kHx], base_[kHy], base_[kHz], mat, table_.data(), layout_.pitch,
          layout_.plane(), box_args(b), kz, disp_);
    else
      e_columns<false, true><<<grid, dim3(kBlockX, kBlockY), 0, compute_>>>(
          base_[kEx], base_[kEy], base_[kEz], base_[kHx], base_[kHy], base_[kHz], mat, table_.data(), layout_.pitch,
          layout_.plane(), box_args(b), kz, disp_);
  } else if (uniform_)
    e_columns<true><<<grid, dim3(kBlockX, kBlockY), 0, compute_>>>(base_[kEx], base_[kEy], base_[kEz], base_[kHx],
                                                                  base_[kHy], base_[kHz], mat, table_.data(),
                                                                  layout_.pitch, layout_.plane(), box_args(b), kz);
  else
    e_columns<false><<<grid, dim3(kBlockX, kBlockY), 0, compute_>>>(base_[kEx], base_[kEy], base_[kEz], base_[kHx],
                                                                   base_[kHy], base_[kHz], mat, table_.data(),
                                                                   layout_.pitch, layout_.plane(), box_args(b), kz);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::update_h_generic(const Box& b) {
  if (b.empty()) return;
  h_cells<<<plane_grid(b), kThreads, 0, compute_>>>(view().f, ch_, layout_, box_args(b));
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::update_e_generic(const Box& b) {
  if (b.empty()) return;
  if (!intersect(b, disp_.box).empty()) {
    e_cells_dispersive<<<plane_grid(b), kThreads, 0, compute_>>>(view().f, mat_base(),
                                                                 table_.data(), uniform_, layout_, box_args(b), disp_);
    TESSERA_CUDA_CHECK_LAUNCH();
    return;
  }
  e_cells<<<plane_grid(b), kThreads, 0, compute_>>>(view().f, mat_base(), table_.data(),
                                                           uniform_, layout_, box_args(b));
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::cpml(int s, bool electric, const FieldPtrs& f) {
  SlabState& st = slabs_.at(s);
  const Box& b = st.slab.local;
  if (b.empty()) return;
  const int a = st.slab.axis;
  const float ch_a = a == 0 ? ch_.cx : a == 1 ? ch_.cy : ch_.cz;
  const DeviceView v = view();
  float* psi_a = st.psi[electric ? 0 : 2].data();
  float* psi_b = st.psi[electric ? 1 : 3].data();
  const dim3 blocks = plane_grid(b);
  const BoxArgs args = box_args(b);
  // The axis is a template argument so that the component pointers are picked at compile time.
#define TESSERA_FDTD_CPML(E, A)                                                                                   \
  cpml_cells<E, A><<<blocks, kThreads, 0, compute_>>>(f, psi_a, psi_b, st.profile.data(), v.mat, v.table, uniform_, \
                                                      ch_a, layout_, args)
  switch (a * 2 + (electric ? 1 : 0)) {
    case 0: TESSERA_FDTD_CPML(false, 0); break;
    case 1: TESSERA_FDTD_CPML(true, 0); break;
    case 2: TESSERA_FDTD_CPML(false, 1); break;
    case 3: TESSERA_FDTD_CPML(true, 1); break;
    case 4: TESSERA_FDTD_CPML(false, 2); break;
    default: TESSERA_FDTD_CPML(true, 2); break;
  }
#undef TESSERA_FDTD_CPML
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::cpml_h(int s) { cpml(s, false, view().f); }
void CudaEngine::cpml_e(int s) { cpml(s, true, view().f); }

void CudaEngine::fused_cpml_h(int s) {
  if (!spare_[0]) throw std::logic_error("CudaEngine::fused_cpml_h without enable_fused");
  // The sweep has swapped the copies: E(n) is in spare_, the new H in base_.
  cpml(s, false, {{spare_[kEx], spare_[kEy], spare_[kEz]}, {base_[kHx], base_[kHy], base_[kHz]}});
}

void CudaEngine::fused_restore_e(const Box& b) {
  if (!spare_[0]) throw std::logic_error("CudaEngine::fused_restore_e without enable_fused");
  if (b.empty()) return;
  copy_cells<<<plane_grid(b), kThreads, 0, compute_>>>(
      FieldPtrs{{spare_[kEx], spare_[kEy], spare_[kEz]}, {}}, FieldPtrs{{base_[kEx], base_[kEy], base_[kEz]}, {}},
      layout_, box_args(b));
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::swap_copies() {
  if (!spare_[0]) throw std::logic_error("CudaEngine::swap_copies without a second copy");
  for (int c = 0; c < kComponents; ++c) std::swap(base_[c], spare_[c]);
}

void CudaEngine::zero_tangential_e(int axis) {
  Box plane = domain_.local();
  plane.hi[axis] = 1;
  zero_plane<<<plane_grid(plane), kThreads, 0, compute_>>>(base_[(axis + 1) % 3], base_[(axis + 2) % 3],
                                                                   layout_, box_args(plane));
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::apply_kicks(std::span<const Kick> kicks) {
  const FieldPtrs f = view().f;
  for (std::size_t first = 0; first < kicks.size(); first += kKicksPerLaunch) {
    KickBatch batch{};
    batch.count = static_cast<int>(std::min<std::size_t>(kKicksPerLaunch, kicks.size() - first));
    std::copy_n(kicks.begin() + static_cast<std::ptrdiff_t>(first), batch.count, batch.k);
    kick<<<1, 1, 0, compute_>>>(f, batch);
    TESSERA_CUDA_CHECK_LAUNCH();
  }
}

void CudaEngine::sample(int row) {
  if (row < 0 || row >= max_rows_) throw std::logic_error("CudaEngine::sample: row outside the sample buffer");
  if (nsamples_ == 0) return;
  sample_nodes<<<blocks_for(nsamples_), kThreads, 0, compute_>>>(view().f, samples_.data(), nsamples_,
                                                                 rows_.data() + std::size_t(row) * nsamples_);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void CudaEngine::read_samples(int rows, std::span<float> host) {
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(nsamples_);
  if (host.size() != n || rows > max_rows_) throw std::logic_error("CudaEngine::read_samples: size mismatch");
  to_host(host.data(), rows_.data(), n * sizeof(float), compute_);
}

EnergySums CudaEngine::energy() {
  const DeviceView v = view();
  energy_sums<<<kEnergyBlocks, kThreads, 0, compute_>>>(v.f, v.mat, eps_r_.data(), uniform_, ch_, layout_,
                                                        box_args(domain_.local()), partials_.data());
  TESSERA_CUDA_CHECK_LAUNCH();
  std::vector<double> host(2 * kEnergyBlocks);
  to_host(host.data(), partials_.data(), partials_.bytes(), compute_);
  EnergySums s;
  for (int b = 0; b < kEnergyBlocks; ++b) {
    s.electric += host[2 * b];
    s.magnetic += host[2 * b + 1];
  }
  return s;
}

void CudaEngine::halo_after_compute() {
  TESSERA_CUDA_CHECK(cudaEventRecord(ready_, compute_));
  TESSERA_CUDA_CHECK(cudaStreamWaitEvent(halo_, ready_, 0));
}

void CudaEngine::compute_after_halo() {
  TESSERA_CUDA_CHECK(cudaEventRecord(halo_done_, halo_));
  TESSERA_CUDA_CHECK(cudaStreamWaitEvent(compute_, halo_done_, 0));
}

void CudaEngine::synchronize() { compute_.synchronize(); }

std::unique_ptr<Engine> make_cuda_engine(const LocalDomain& domain, const HCoeffs& ch) {
  return std::make_unique<CudaEngine>(domain, ch);
}

}  // namespace tessera::fdtd
