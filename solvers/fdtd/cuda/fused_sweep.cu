// The fused Yee sweep: H and then E of every cell in one pass over memory (cuda_engine.hpp,
// CudaEngine::update_fused). The split kernels move 72 bytes per cell and step (the H update
// reads E and H and writes H, the E update reads H and E and writes E); here each component
// is read once and written once: 48 bytes (+1 for a material index).
//
// Mapping: a block owns a 32 x 8 tile of (x, y) columns and marches a stretch of z. At each z
// layer every thread computes the new H of its cell; threads on the tile's low x and y edges
// also compute it for the cell just outside (the E update reads H at -x and -y), and the
// new H of the layer below stays in registers (-z). The layer's H goes through shared memory,
// then each thread updates its E. Because the new H of a neighbour tile's cell is recomputed
// rather than read back, the sweep reads one copy of the fields and writes the other: no
// block ever sees another's output.
//
// Bitwise: every value is curl_step_h / curl_step_e (yee.hpp) of the same operands in the same
// order as h_columns / e_columns, and fdtd's CUDA sources compile with -fmad=false, so the new
// fields equal the split kernels' bit for bit.
#include <algorithm>

#include "core/cuda_check.hpp"
#include "solvers/fdtd/cuda/cuda_engine.hpp"

namespace tessera::fdtd {
namespace {

constexpr int kFuseX = 32;

struct H3 {
  float x, y, z;
};

// Index steps from a cell to its +x, +y and +z neighbours.
struct Steps {
  std::int64_t x, y, z;
};

// The new H at array index c from the current fields (h_columns' formula).
__device__ __forceinline__ H3 new_h(const FieldPtrs& in, std::int64_t c, const Steps& s, const HCoeffs& k) {
  const float ex_c = __ldg(in.e[0] + c), ey_c = __ldg(in.e[1] + c), ez_c = __ldg(in.e[2] + c);
  const float ex_n = __ldg(in.e[0] + c + s.z), ey_n = __ldg(in.e[1] + c + s.z);
  H3 h;
  h.x = curl_step_h(__ldg(in.h[0] + c), k.cy, __ldg(in.e[2] + c + s.y), ez_c, k.cz, ey_n, ey_c);
  h.y = curl_step_h(__ldg(in.h[1] + c), k.cz, ex_n, ex_c, k.cx, __ldg(in.e[2] + c + s.x), ez_c);
  h.z = curl_step_h(__ldg(in.h[2] + c), k.cx, __ldg(in.e[1] + c + s.x), ey_c, k.cy, __ldg(in.e[0] + c + s.y), ex_c);
  return h;
}

// Component C of a triple, chosen at compile time (a runtime index would put it on the stack).
template <int C>
__device__ __forceinline__ float& component(H3& h) {
  if constexpr (C == 0) return h.x;
  else if constexpr (C == 1) return h.y;
  else return h.z;
}

// Whether cell (i, j, k) lies in the slab, and its dense psi index and place along the axis.
__device__ __forceinline__ bool in_slab(const FusedSlab& s, int i, int j, int k, std::int64_t& d, int& along) {
  if (i < s.lo[0] || i >= s.hi[0] || j < s.lo[1] || j >= s.hi[1] || k < s.lo[2] || k >= s.hi[2]) return false;
  d = (std::int64_t(k - s.lo[2]) * (s.hi[1] - s.lo[1]) + (j - s.lo[1])) * (s.hi[0] - s.lo[0]) + (i - s.lo[0]);
  along = s.axis == 0 ? i - s.lo[0] : s.axis == 1 ? j - s.lo[1] : k - s.lo[2];
  return true;
}

// cpml_cells' H correction for a slab along axis A: E(n) from `in` at the cell and at +1.
template <int A>
__device__ __forceinline__ void cpml_h_axis(H3& h, const FieldPtrs& in, std::int64_t c, std::int64_t sa, float ch_a,
                                            const CpmlCoeffs& pc, const FusedSlab& sl, std::int64_t d, bool store) {
  constexpr int p = (A + 1) % 3, q = (A + 2) % 3;
  const float dq = __ldg(in.e[q] + c + sa) - __ldg(in.e[q] + c);
  const float s2 = cpml_psi(sl.h_in[0][d], pc.bh, pc.ch, dq);
  component<p>(h) = cpml_correct(component<p>(h), ch_a, pc.kh, dq, s2);
  const float dp = __ldg(in.e[p] + c + sa) - __ldg(in.e[p] + c);
  const float s3 = cpml_psi(sl.h_in[1][d], pc.bh, pc.ch, dp);
  component<q>(h) = cpml_correct(component<q>(h), -ch_a, pc.kh, dp, s3);
  if (store) {
    sl.h_out[0][d] = s2;
    sl.h_out[1][d] = s3;
  }
}

// Calls f(slab, psi index, profile) for every slab holding cell (i, j, k), in slab order (the
// order of the split step's cpml calls); a cell in no slab costs one box test.
template <class F>
__device__ __forceinline__ void for_each_slab_holding(const FusedCpml& cpml, int i, int j, int k, F&& f) {
  if (i >= cpml.inner_lo[0] && i < cpml.inner_hi[0] && j >= cpml.inner_lo[1] && j < cpml.inner_hi[1] &&
      k >= cpml.inner_lo[2] && k < cpml.inner_hi[2])
    return;
  for (int s = 0; s < cpml.count; ++s) {
    const FusedSlab& sl = cpml.slab[s];
    std::int64_t d;
    int along;
    if (in_slab(sl, i, j, k, d, along)) f(sl, d, sl.profile[along]);
  }
}

// psi goes out only where `store` (the cell's own computation, not a tile edge's copy).
__device__ void cpml_h_cell(H3& h, const FieldPtrs& in, std::int64_t c, const Steps& st, int i, int j, int k,
                            const HCoeffs& kh, const FusedCpml& cpml, bool store) {
  for_each_slab_holding(cpml, i, j, k, [&](const FusedSlab& sl, std::int64_t d, const CpmlCoeffs& pc) {
    if (sl.axis == 0) cpml_h_axis<0>(h, in, c, st.x, kh.cx, pc, sl, d, store);
    else if (sl.axis == 1) cpml_h_axis<1>(h, in, c, st.y, kh.cy, pc, sl, d, store);
    else cpml_h_axis<2>(h, in, c, st.z, kh.cz, pc, sl, d, store);
  });
}

// cpml_cells' E correction for a slab along axis A: `e` the cell's new E, `h` its new H and
// `below` the new H at -1 along A.
template <int A>
__device__ __forceinline__ void cpml_e_axis(H3& e, H3 h, H3 below, float cb_a, const CpmlCoeffs& pc,
                                            const FusedSlab& sl, std::int64_t d) {
  constexpr int p = (A + 1) % 3, q = (A + 2) % 3;
  const float dq = component<q>(h) - component<q>(below);
  const float s0 = cpml_psi(sl.e_psi[0][d], pc.be, pc.ce, dq);
  sl.e_psi[0][d] = s0;
  component<p>(e) = cpml_correct(component<p>(e), -cb_a, pc.ke, dq, s0);
  const float dp = component<p>(h) - component<p>(below);
  const float s1 = cpml_psi(sl.e_psi[1][d], pc.be, pc.ce, dp);
  sl.e_psi[1][d] = s1;
  component<q>(e) = cpml_correct(component<q>(e), cb_a, pc.ke, dp, s1);
}

__device__ void cpml_e_cell(H3& e, const H3& h, const H3& below_x, const H3& below_y, const H3& below_z,
                            const Material& m, int i, int j, int k, const FusedCpml& cpml) {
  for_each_slab_holding(cpml, i, j, k, [&](const FusedSlab& sl, std::int64_t d, const CpmlCoeffs& pc) {
    if (sl.axis == 0) cpml_e_axis<0>(e, h, below_x, m.cbx, pc, sl, d);
    else if (sl.axis == 1) cpml_e_axis<1>(e, h, below_y, m.cby, pc, sl, d);
    else cpml_e_axis<2>(e, h, below_z, m.cbz, pc, sl, d);
  });
}

// What the E update reads at index c in a low ghost layer at a wall: the ghost itself, which
// this sweep never changes (the PEC's zeros).
__device__ __forceinline__ H3 ghost_h(const FieldPtrs& in, std::int64_t c) {
  return {__ldg(in.h[0] + c), __ldg(in.h[1] + c), __ldg(in.h[2] + c)};
}

// 2048 threads per SM (8 blocks of 32 x 8, 4 of 32 x 16): 32 registers, no spills (ptxas -v);
// the loads of many warps in flight are what keeps DRAM busy.
// kWrap: some axis is periodic and spanned by this rank alone (`wrap` bit a): reads beyond its
// ends go to its other end instead of to a ghost layer, so that axis needs no exchange.
// kCpml: the slabs' corrections inside the sweep, a separate kernel with room for 40 registers
// (6 blocks per SM): at 32 it spilled.
template <bool kUniform, int kFuseY, bool kWrap, bool kCpml>
__global__ void __launch_bounds__(kFuseX* kFuseY, (kCpml ? 1536 : 2048) / (kFuseX * kFuseY))
    fused_columns(FieldPtrs in, FieldPtrs out, const MaterialIndex* __restrict__ mat,
                  const Material* __restrict__ table, HCoeffs k, std::int64_t pitch, std::int64_t plane,
                  int nx, int ny, int nz, int kz, ZStretches stretches, int recompute_low, int wrap,
                  const __grid_constant__ FusedCpml cpml) {
  // The layer's new H, [component][y + 1][x + 1] of the tile: row 0 and column 0 hold the
  // cells at -y and -x of the tile. Two buffers, so one barrier per layer suffices: a thread
  // writes buffer b again only after every thread has passed the next layer's barrier, that
  // is, after every read of b.
  __shared__ float sh[2][3][kFuseY + 1][kFuseX + 1];
  const int tx = int(threadIdx.x), ty = int(threadIdx.y), tid = ty * kFuseX + tx;
  const int x0 = int(blockIdx.x) * kFuseX, y0 = int(blockIdx.y) * kFuseY;
  const int i = x0 + tx, j = y0 + ty;
  const int k0 = (stretches.first + int(blockIdx.z) * stretches.step) * kz, k1 = min(k0 + kz, nz);
  const bool inside = i < nx && j < ny;
  // Besides its own cell, thread tid < 40 computes one edge cell of the tile each layer: the
  // row at -y (tid < 32) or the column at -x (32 <= tid < 40).
  const bool row_edge = tid < kFuseX;
  const int ei = row_edge ? x0 + tid : x0 - 1, ej = row_edge ? y0 - 1 : y0 + tid - kFuseX;
  const bool edge = tid < kFuseX + kFuseY && ei < nx && ej < ny;
  const int esx = row_edge ? tid + 1 : 0, esy = row_edge ? 0 : tid - kFuseX + 1;

  float hx_m = 0, hy_m = 0;  // the new H of the layer below (-z)
  float hz_m = 0;            // (only the CPML correction reads Hz at -z)
  int b = 0;
  // Layer k0 - 1 first: its new H (the ghost's below layer 0) is the -z neighbour of layer k0.
  for (int kk = k0 - 1; kk < k1; ++kk, b ^= 1) {
    const std::int64_t layer = std::int64_t(kk + 1) * plane;
    const bool prologue = kk < k0;
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
      const bool own = pass == 0;
      if (own ? !inside : (prologue || !edge)) continue;
      int ci = own ? i : ei, cj = own ? j : ej, ck = kk;
      // In a low ghost layer, H is what the split update would read there: at a wall the ghost
      // itself, which no update changes; behind a neighbour the new H that the neighbour
      // computes, from the same operands (its E and H in this rank's ghosts, edges included);
      // across a wrapped axis the new H of the axis's last cell.
      if (kWrap) {
        if (ci < 0 && (wrap & 1)) ci += nx;
        if (cj < 0 && (wrap & 2)) cj += ny;
        if (ck < 0 && (wrap & 4)) ck += nz;
      }
      const std::int64_t c = std::int64_t(ck + 1) * plane + std::int64_t(cj + 1) * pitch + (ci + 1);
      const bool wall = (ci < 0 && !(recompute_low & 1)) || (cj < 0 && !(recompute_low & 2)) ||
                        (ck < 0 && !(recompute_low & 4));
      Steps s{1, pitch, plane};
      if (kWrap) {
        if ((wrap & 1) && ci == nx - 1) s.x = 1 - nx;
        if ((wrap & 2) && cj == ny - 1) s.y = (1 - std::int64_t(ny)) * pitch;
        if ((wrap & 4) && ck == nz - 1) s.z = (1 - std::int64_t(nz)) * plane;
      }
      H3 h = wall ? ghost_h(in, c) : new_h(in, c, s, k);
      if (kCpml && !wall) cpml_h_cell(h, in, c, s, ci, cj, ck, k, cpml, own && !prologue);
      const int sx = own ? tx + 1 : esx, sy = own ? ty + 1 : esy;
      sh[b][0][sy][sx] = h.x;
      sh[b][1][sy][sx] = h.y;
      sh[b][2][sy][sx] = h.z;
    }
    __syncthreads();
    if (!inside) continue;
    const float hx = sh[b][0][ty + 1][tx + 1], hy = sh[b][1][ty + 1][tx + 1], hz = sh[b][2][ty + 1][tx + 1];
    if (!prologue) {
      const std::int64_t c = layer + std::int64_t(j + 1) * pitch + (i + 1);
      const Material m = kUniform ? table[0] : table[mat[c]];
      const float hx_ym = sh[b][0][ty][tx + 1];  // Hx at -y
      const float hy_xm = sh[b][1][ty + 1][tx];  // Hy at -x
      const float hz_ym = sh[b][2][ty][tx + 1];  // Hz at -y
      const float hz_xm = sh[b][2][ty + 1][tx];  // Hz at -x
      H3 e{curl_step_e(__ldg(in.e[0] + c), m.ca, m.cby, hz, hz_ym, m.cbz, hy, hy_m),
           curl_step_e(__ldg(in.e[1] + c), m.ca, m.cbz, hx, hx_m, m.cbx, hz, hz_xm),
           curl_step_e(__ldg(in.e[2] + c), m.ca, m.cbx, hy, hy_xm, m.cby, hx, hx_ym)};
      if (kCpml)
        cpml_e_cell(e, {hx, hy, hz}, {sh[b][0][ty + 1][tx], hy_xm, hz_xm}, {hx_ym, sh[b][1][ty][tx + 1], hz_ym},
                    {hx_m, hy_m, hz_m}, m, i, j, kk, cpml);
      out.e[0][c] = e.x;
      out.e[1][c] = e.y;
      out.e[2][c] = e.z;
      out.h[0][c] = hx;
      out.h[1][c] = hy;
      out.h[2][c] = hz;
    }
    hx_m = hx;
    hy_m = hy;
    if (kCpml) hz_m = hz;
  }
}

template <int kFuseY, bool kWrap, bool kCpml>
void launch_tile(const FieldPtrs& in, const FieldPtrs& out, const MaterialIndex* mat, const Material* table, bool uniform,
                 const HCoeffs& k, const Layout& l, const Index3& n, int kz, const ZStretches& z, int recompute_low,
                 int wrap, const FusedCpml& cpml, cudaStream_t stream) {
  const dim3 grid(unsigned((n[0] + kFuseX - 1) / kFuseX), unsigned((n[1] + kFuseY - 1) / kFuseY), unsigned(z.count));
  const dim3 block(kFuseX, kFuseY);
  if (uniform)
    fused_columns<true, kFuseY, kWrap, kCpml>
        <<<grid, block, 0, stream>>>(in, out, mat, table, k, l.pitch, l.plane(), int(n[0]), int(n[1]),
                                     int(n[2]), kz, z, recompute_low, wrap, cpml);
  else
    fused_columns<false, kFuseY, kWrap, kCpml>
        <<<grid, block, 0, stream>>>(in, out, mat, table, k, l.pitch, l.plane(), int(n[0]), int(n[1]),
                                     int(n[2]), kz, z, recompute_low, wrap, cpml);
}

}  // namespace

void launch_fused_sweep(const FieldPtrs& in, const FieldPtrs& out, const MaterialIndex* mat, const Material* table,
                        bool uniform, const HCoeffs& k, const Layout& l, const Index3& n, const FusedShape& shape,
                        const ZStretches& z, int recompute_low, int wrap, const FusedCpml& cpml,
                        cudaStream_t stream) {
  if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0 || z.count <= 0) return;
  const int kz = shape.kz, r = recompute_low;
  // 32 x 16 tiles (a tuning option) only without CPML: fewer kernels to compile.
  if (cpml.count > 0) {
    if (wrap)
      launch_tile<8, true, true>(in, out, mat, table, uniform, k, l, n, kz, z, r, wrap, cpml, stream);
    else
      launch_tile<8, false, true>(in, out, mat, table, uniform, k, l, n, kz, z, r, wrap, cpml, stream);
  } else if (shape.tile_y == 16) {
    if (wrap)
      launch_tile<16, true, false>(in, out, mat, table, uniform, k, l, n, kz, z, r, wrap, cpml, stream);
    else
      launch_tile<16, false, false>(in, out, mat, table, uniform, k, l, n, kz, z, r, wrap, cpml, stream);
  } else if (wrap) {
    launch_tile<8, true, false>(in, out, mat, table, uniform, k, l, n, kz, z, r, wrap, cpml, stream);
  } else {
    launch_tile<8, false, false>(in, out, mat, table, uniform, k, l, n, kz, z, r, wrap, cpml, stream);
  }
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

ZStretches z_stretches(std::int64_t nz, int kz, SweepPart part) {
  const int all = kz > 0 ? int((nz + kz - 1) / kz) : 0;
  // Stretch 0 recomputes the H of the low ghost plane, the last one reads E in the high one.
  const bool split = all >= 3;
  switch (part) {
    case SweepPart::inner:
      return split ? ZStretches{1, 1, all - 2} : ZStretches{0, 1, 0};
    case SweepPart::outer:
      return split ? ZStretches{0, all - 1, 2} : ZStretches{0, 1, all};
    case SweepPart::all:
      break;
  }
  return {0, 1, all};
}

FusedShape fused_shape(const Index3& n, int tile_y, int stretches) {
  FusedShape s;
  s.tile_y = tile_y == 16 ? 16 : 8;
  // Short z stretches: measured on an H100 at 512^3 (docs/performance.md), 8 layers per
  // block beat 16, 32, 64, 103 and 512 (one stretch, a single wave) by 5-20%, although each
  // stretch recomputes the H of the layer below it (1/8 more H arithmetic, no more DRAM
  // traffic: that layer was just read through L2 by the stretch below).
  constexpr std::int64_t kLayers = 8;
  const std::int64_t parts = stretches > 0 ? stretches : (n[2] + kLayers - 1) / kLayers;
  const std::int64_t kz = (n[2] + std::max<std::int64_t>(parts, 1) - 1) / std::max<std::int64_t>(parts, 1);
  s.kz = int(std::clamp<std::int64_t>(kz, std::min<std::int64_t>(4, n[2]), std::max<std::int64_t>(n[2], 1)));
  return s;
}

}  // namespace tessera::fdtd
