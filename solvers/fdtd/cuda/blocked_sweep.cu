// The blocked sweep: K = 2..4 whole Yee steps per pass over memory (CudaEngine::update_blocked),
// bitwise K split steps, each followed by the PEC walls' zeroing (Stepper::finish_step).
//
// Scheme: a 2.5D temporal pipeline along z with a redundant halo in x and y.
//  - A block owns a 32 x V tile of (x, y) columns, one thread per column, and marches a
//    stretch [z0, z1) of z layers. The inner (32 - 2K) x (V - 2K) columns are its output; the
//    K columns around them are a halo that the block computes again for itself (the tiles
//    beside it compute the same cells as their own output, from the same operands).
//  - "Level" s is the fields after s steps (level 0: what memory holds). In iteration t, level
//    0 is layer t + 1, read from `in`; level s = 1..K computes layer t - s + 1: its H from level
//    s - 1's E at that layer (made in the last iteration) and at the layer above (made just
//    now), then its E from that new H and its own H of the layer below (last iteration's).
//    So level s trails level s - 1 by one layer, and only level K is written, to `out`.
//  - x neighbours come from the adjacent lane (a warp is one row of the tile: shuffles), y
//    neighbours through shared memory (per level: E's x and z components, double buffered by
//    iteration parity, and H's x and z), z neighbours stay in registers. One barrier per level
//    and iteration (between a level's H and its E).
//  - Validity: level s is exact on lanes [s, 32 - s) (E) and [s - 1, 32 - s) (H), rows alike,
//    and from layer z0 - K + s up (E); after K levels the inner columns of [z0, z1) are exact.
//    The garbage the halo's edges compute (shuffles past the warp, pad rows, layers before
//    the pipeline filled) never reaches them, and it is never written.
//  - Bitwise: every value is curl_step_h / curl_step_e (yee.hpp) of the operands h_columns /
//    e_columns use, in their order; fdtd's CUDA sources compile with -fmad=false.
// Boundaries: on an axis with a wall, a column or layer outside the grid is a ghost, which
// keeps the value it has in memory (the PEC's zeros: no step changes a wall's ghost), and
// beyond the ghost layer reads zero (no cell inside the grid depends on it); on a periodic
// axis this rank spans alone (`wrap` bit), coordinates wrap and every column is a real cell.
// Across ranks (z only): the `deep` planes beyond a z face with a neighbour hold that
// neighbour's fields and material indices at level 0 (Ghosts::exchange_pass); they are real
// cells to the pipeline, which computes them again as it does the x and y halo, so a stretch
// that starts or ends at such a face is exact up to it after K levels (deep >= K).
// After each level's E, a real cell on the low plane of a `pec` axis gets its tangential E
// zeroed (zero_tangential_e).
// CPML (kCpml, one rank): a level's H and E of a cell in a slab get the slab's corrections
// right after their bulk update, in slab order, from the same differences cpml_cells takes
// (the E at +1 along the slab's axis, the new H at -1: both already at hand for the curl).
// psi has no neighbours: a layer's psi is updated in place by level after level of the thread
// that owns its column (level s in iteration t works on level s - 1's layer of iteration
// t - 1). An x or y slab's psi (a column lies in one such slab per axis for the whole pass)
// lives in the thread's slots of shared memory, one per layer in flight (K + 1: levels 1..K's
// and the next one's, which cp.async fills from the slab's array one iteration ahead); level
// K writes the own cells' psi to the slab's array of the pass's end. A z slab's psi goes
// through per-level arrays (BlockedSlab::psi_level), written where the cell is exact (E's
// region below: every tile that computes it writes the same bits, and only the writing thread
// reads it back, one iteration later). The slots and the slab code take a block of 32 x 24
// columns (80 registers, 24 warps per SM).
//
// Bytes per pass (model): 24 read + 24 written + 1 material byte per output cell, for K steps;
// the halo's columns are read once more by the tile that does not own them, from L2 when the
// two tiles run at once (neighbouring blocks do), else from DRAM: (32 V) / ((32-2K)(V-2K)).
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "solvers/fdtd/cuda/cuda_engine.hpp"

namespace tessera::fdtd {
namespace {

constexpr int kLanes = 32;
constexpr unsigned kFullWarp = 0xffffffffu;

struct V3 {
  float x, y, z;
};

struct BlockedArgs {
  std::int64_t pitch, plane;
  int nx, ny, nz;
  int kz;    // layers per z stretch
  ZStretches stretches;  // the ones this launch marches (blockIdx.z counts them)
  int wrap;  // bit a: axis a is periodic and this rank's alone
  int pec;   // bit a: the low plane of axis a is a PEC wall (tangential E zeroed every step)
  int deep_lo, deep_hi;  // z planes below 0 / from nz up that hold a neighbour's cells (0: none)
};

// A coordinate g along an axis of n cells: the array coordinate to read, whether the cell is
// real (updated), and whether it may be read at all (a real cell or a wall's ghost). `lo` and
// `hi`: the neighbour's planes held beyond each end (z across ranks; else 0).
struct Place {
  int c;
  bool real, load;
};

__device__ __forceinline__ Place place(int g, int n, bool wrap, int lo = 0, int hi = 0) {
  if (wrap) {
    // A step or two either way (the halo and the pipeline stay within one period of the grid
    // but on tiny axes): no integer division on the way of every layer.
    int c = g < 0 ? g + n : g >= n ? g - n : g;
    if (c < 0 || c >= n) {
      c = g % n;
      if (c < 0) c += n;
    }
    return {c, true, true};
  }
  return {g, g >= -lo && g < n + hi, g >= -max(lo, 1) && g < n + max(hi, 1)};
}

// Component C of a triple, chosen at compile time.
template <int C>
__device__ __forceinline__ float& component(V3& v) {
  if constexpr (C == 0) return v.x;
  else if constexpr (C == 1) return v.y;
  else return v.z;
}

// Asynchronous 4-byte copy from global to shared memory (cp.async, sm_80 and later): the value
// lands without passing through a register. copies_arrived() waits for this thread's copies.
__device__ __forceinline__ void copy_async(float* to, const float* from) {
#if __CUDA_ARCH__ >= 800
  const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(at), "l"(from) : "memory");
#else
  *to = __ldg(from);
#endif
}
__device__ __forceinline__ void copies_arrived() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// cpml_cells' correction of a slab cell's new H (kElectric false) or E `f`, along axis A: its
// components A + 1 and A + 2 from the differences dq and dp along A, with the profile's b, c
// and 1/kappa - 1 and s = ch_a (H) or -cb_a (E). psi_a, psi_b: the cell's psi before, then after.
template <int A>
__device__ __forceinline__ void correct(V3& f, float b, float c, float kinv, float s, float dq, float dp,
                                        float& psi_a, float& psi_b) {
  constexpr int p = (A + 1) % 3, r = (A + 2) % 3;
  psi_a = cpml_psi(psi_a, b, c, dq);
  component<p>(f) = cpml_correct(component<p>(f), s, kinv, dq, psi_a);
  psi_b = cpml_psi(psi_b, b, c, dp);
  component<r>(f) = cpml_correct(component<r>(f), -s, kinv, dp, psi_b);
}

// The psi of the column's x and y slabs (a column lies in one slab per axis for the whole pass)
// live in this thread's slots of shared memory, one per layer in flight: `slot` of layer zs
// holds its psi of the last level that updated it; the copy of the pass's start arrives there
// ahead of level 1 (copy_async). psi array w (E a, E b, H a, H b) of axis A in slot m.
template <int T, int M>
__device__ __forceinline__ float* psi_slot(float* slots, int axis, int m, int w) {
  return slots + ((axis * M + m) * 4 + w) * T;
}

// Level `level`'s correction of H or E by the column's slab along A = x or y (q: the slab, -1:
// none): psi from the slot `m`, back to it, and at level K to the slab's array of the pass's end
// where the cell (layer k, col_psi `col`) is the block's own (`own`). `coef`: the axis's profile
// (E or H).
template <int A, bool kElectric, int K, int T>
__device__ __forceinline__ void column_slab(const BlockedCpml& cp, int q, int col, int k, int level, bool own,
                                            float* slots, int m, const float4& coef, V3& f, float dq, float dp,
                                            float s) {
  if (q < 0) return;
  constexpr int w = kElectric ? 0 : 2;
  float* const at = psi_slot<T, K + 1>(slots, A, m, w);
  float psi_a = at[0], psi_b = at[T];
  correct<A>(f, coef.x, coef.y, coef.z, s, dq, dp, psi_a, psi_b);
  if (level < K) {
    at[0] = psi_a;
    at[T] = psi_b;
  } else if (own) {
    const BlockedSlab& sl = cp.slab[q];
    const int d = k * sl.plane + col;
    sl.psi_out[w][d] = psi_a;
    sl.psi_out[w + 1][d] = psi_b;
  }
}

// Column (i, j)'s index in one z layer of a slab's box: its psi at layer k is at
// (k - lo[2]) plane + this.
__device__ __forceinline__ int column_in_slab(const BlockedSlab& sl, int i, int j) {
  return (j - sl.lo[1]) * (sl.hi[0] - sl.lo[0]) + (i - sl.lo[0]);
}

// Level `level`'s correction by the z slab q (-1: none) of layer k: psi through the slab's
// arrays (psi_in before the pass, psi_level after each of its steps, psi_out after it), read
// and written where `keep` (the cells exact at this level). `col`: the column's index in a
// layer of the slab.
template <bool kElectric, int K>
__device__ __forceinline__ void layer_slab(const BlockedCpml& cp, int q, int col, int k, int level, bool keep, V3& f,
                                           float dq, float dp, float s) {
  if (q < 0) return;
  const BlockedSlab& sl = cp.slab[q];
  constexpr int w = kElectric ? 0 : 2;
  const int d = (k - sl.lo[2]) * sl.plane + col;  // col: column_in_slab
  const CpmlCoeffs& pc = sl.profile[k - sl.lo[2]];
  const float* const* from = level == 1 ? sl.psi_in : sl.psi_level[level - 2];
  float psi_a = from[w][d], psi_b = from[w + 1][d];
  correct<2>(f, kElectric ? pc.be : pc.bh, kElectric ? pc.ce : pc.ch, kElectric ? pc.ke : pc.kh, s, dq, dp, psi_a,
             psi_b);
  if (keep) {
    float* const* to = level == K ? sl.psi_out : sl.psi_level[level - 1];
    to[w][d] = psi_a;
    to[w + 1][d] = psi_b;
  }
}

// 1024 threads per SM either way: one block of 32 x 32 or two of 32 x 16, so at most 64
// registers (ptxas -v gives the count and any spills). With CPML the slabs' corrections need
// more: at 64 the fields of every cell spilled (3.6 ms a step at 512^3 on an H200 against
// 0.98 without CPML), so that kernel runs one block per SM: 32 x 24 (80 registers) or 32 x 16.
template <int K, int V, bool kUniform, bool kCpml>
__global__ void __launch_bounds__(kLanes* V, kCpml ? 1 : 1024 / (kLanes * V))
    blocked_columns(FieldPtrs in, FieldPtrs out, const MaterialIndex* __restrict__ mat,
                    const Material* __restrict__ table, HCoeffs kh, BlockedArgs a,
                    const __grid_constant__ BlockedCpml cpml) {
  static_assert(K >= 2 && V > 2 * K, "a tile needs inner columns");
  constexpr int kPlane = (V + 1) * kLanes;  // one shared array: V rows and a pad row
  constexpr int kTileX = kLanes - 2 * K, kTileY = V - 2 * K;
  // E of level s < K: [s][parity][Ex, Ez][row 0..V-1, pad row V (the +y of the last row)].
  // H of level s >= 1: [s - 1][Hx, Hz][pad row 0 (the -y of the first row), rows 1..V].
  extern __shared__ float smem[];
  float* const esh = smem;
  float* const hsh = smem + K * 4 * kPlane;
  // CPML: this thread's psi slots (psi_slot), then the x slabs' profile by lane and the y
  // slabs' by row ([E, H][b, c, 1/kappa - 1, pad]), after the fields' arrays.
  constexpr int kSlots = K + 1;  // layers in flight: levels 1..K's and the next one's
  float* const psi_slots = smem + K * 6 * kPlane + threadIdx.y * kLanes + threadIdx.x;
  float4* const profile_x = reinterpret_cast<float4*>(smem + K * 6 * kPlane + 2 * kSlots * 4 * kLanes * V);
  float4* const profile_y = profile_x + 2 * kLanes;
  const int lane = int(threadIdx.x), ty = int(threadIdx.y);
  for (int v = ty * kLanes + lane; v < K * 6 * kPlane; v += kLanes * V) smem[v] = 0.0f;

  const int gx = int(blockIdx.x) * kTileX + lane - K, gy = int(blockIdx.y) * kTileY + ty - K;
  const Place px = place(gx, a.nx, a.wrap & 1), py = place(gy, a.ny, a.wrap & 2);
  const bool col_real = px.real && py.real, col_load = px.load && py.load;
  const bool out_col = lane >= K && lane < kLanes - K && ty >= K && ty < V - K && gx < a.nx && gy < a.ny;
  const bool zero_x = (a.pec & 1) && px.c == 0, zero_y = (a.pec & 2) && py.c == 0;
  const std::int64_t column = col_load ? std::int64_t(py.c + 1) * a.pitch + (px.c + 1) : 0;
  const int z0 = (a.stretches.first + int(blockIdx.z) * a.stretches.step) * a.kz, z1 = min(z0 + a.kz, a.nz);
  const int t0 = z0 - K, iterations = z1 - z0 + 2 * K - 1;
  const int erow = ty * kLanes + lane, erow_up = erow + kLanes;  // E: own row, row +y
  // CPML: the x and y slabs holding this column (-1: none), for every layer of the pass, and
  // the psi index of the column's cell at layer k in each: k plane + col_psi.
  int col_slab[2] = {-1, -1}, col_psi[2] = {0, 0};
  if constexpr (kCpml) {
    for (int ax = 0; ax < 2; ++ax)
      for (int side = 0; side < 2; ++side) {
        const int q = cpml.of[ax][side];
        if (q < 0) continue;
        const BlockedSlab& sl = cpml.slab[q];
        const int along = ax == 0 ? px.c : py.c;
        const bool on_axis = (ax == 0 ? px.real : py.real) && along >= sl.lo[ax] && along < sl.hi[ax];
        if (on_axis && (ax == 0 ? ty : lane) == 0) {  // the lane's (x) or row's (y) profile
          const CpmlCoeffs& pc = sl.profile[along - sl.lo[ax]];
          float4* const to = (ax == 0 ? profile_x + 2 * lane : profile_y + 2 * ty);
          to[0] = make_float4(pc.be, pc.ce, pc.ke, 0.0f);
          to[1] = make_float4(pc.bh, pc.ch, pc.kh, 0.0f);
        }
        if (col_real && px.c >= sl.lo[0] && px.c < sl.hi[0] && py.c >= sl.lo[1] && py.c < sl.hi[1]) {
          col_slab[ax] = q;
          col_psi[ax] = column_in_slab(sl, px.c, py.c) - sl.lo[2] * sl.plane;
        }
      }
  }
  const bool col_xy = col_slab[0] >= 0 || col_slab[1] >= 0;
  // The column's psi index in the z slabs, less the layer's part (both span the x-y grid alike).
  int col_z = 0;
  if constexpr (kCpml) {
    const int q = cpml.of[2][0] >= 0 ? cpml.of[2][0] : cpml.of[2][1];
    if (q >= 0) col_z = column_in_slab(cpml.slab[q], px.c, py.c);
  }
  // A slab cell of level s at layer zs (slot0: level 1's slot): its x and y slabs' psi slot,
  // whether its E is exact (a z slab's psi is kept there, above) and whether the cell is the
  // block's own (its psi after the pass is kept).
  const auto slab_slot = [&](int s, int slot0) { return slot0 + 1 - s >= 0 ? slot0 + 1 - s : slot0 + kSlots + 1 - s; };
  const auto exact = [&](int s, int zs) {
    return lane >= s && lane < kLanes - s && ty >= s && ty < V - s && zs >= z0 - K + s &&
           zs < (s == K ? z1 : z1 + K - s);
  };
  const auto own_layer = [&](int zs) { return out_col && zs >= z0 && zs < z1; };
  // Level s's corrections of its new H or E `f` at layer zs (pz.c: its coordinate) by the slabs
  // holding the cell, in slab order (x, y, z: the split step's order of cpml calls); dq, dp and
  // coef: each axis's differences and s (column_slab, layer_slab).
  const auto correct_slabs = [&](auto electric, int s, int zs, int zc, int z_slab, int slot0, V3& f, V3 dq, V3 dp,
                                 V3 coef) {
    constexpr bool kElectric = decltype(electric)::value;
    if (col_xy) {
      const int slot = slab_slot(s, slot0);
      const bool own = s == K && own_layer(zs);
      column_slab<0, kElectric, K, kLanes * V>(cpml, col_slab[0], col_psi[0], zc, s, own, psi_slots, slot,
                                               profile_x[2 * lane + (kElectric ? 0 : 1)], f, dq.x, dp.x, coef.x);
      column_slab<1, kElectric, K, kLanes * V>(cpml, col_slab[1], col_psi[1], zc, s, own, psi_slots, slot,
                                               profile_y[2 * ty + (kElectric ? 0 : 1)], f, dq.y, dp.y, coef.y);
    }
    layer_slab<kElectric, K>(cpml, z_slab, col_z, zc, s, exact(s, zs), f, dq.z, dp.z, coef.z);
  };
  // The pass's first psi of the column's x and y slabs at layer g, into its slot m (psi_slot).
  const auto fetch_psi = [&](int g, int m) {
    const Place pz = place(g, a.nz, a.wrap & 4, a.deep_lo, a.deep_hi);
    if (!pz.real) return;
#pragma unroll
    for (int ax = 0; ax < 2; ++ax)
      if (col_slab[ax] >= 0) {
        const BlockedSlab& sl = cpml.slab[col_slab[ax]];
        const int d = pz.c * sl.plane + col_psi[ax];
#pragma unroll
        for (int w = 0; w < 4; ++w) copy_async(psi_slot<kLanes * V, kSlots>(psi_slots, ax, m, w), sl.psi_in[w] + d);
      }
  };
  const int hrow = erow + kLanes, hrow_down = erow;              // H: own row, row -y

  // Level 0 at layer g.
  const auto load = [&](int g, V3& e, V3& h, unsigned& m) {
    const Place pz = place(g, a.nz, a.wrap & 4, a.deep_lo, a.deep_hi);
    if (col_load && pz.load) {
      const std::int64_t c = std::int64_t(pz.c + 1) * a.plane + column;
      e = {__ldg(in.e[0] + c), __ldg(in.e[1] + c), __ldg(in.e[2] + c)};
      h = {__ldg(in.h[0] + c), __ldg(in.h[1] + c), __ldg(in.h[2] + c)};
      m = kUniform || !(col_real && pz.real) ? 0u : unsigned(__ldg(mat + c));
    } else {
      e = {0, 0, 0};
      h = {0, 0, 0};
      m = 0;
    }
  };

  // ep[s]: level s's E at the layer it made last iteration (s < K); hp[s]: its H (s <= K).
  V3 ep[K], hp[K + 1];
#pragma unroll
  for (int s = 0; s < K; ++s) ep[s] = {0, 0, 0};
#pragma unroll
  for (int s = 0; s <= K; ++s) hp[s] = {0, 0, 0};
  // The material index of level s's layer in byte s - 1 (level 1 first).
  unsigned mats = 0;
  load(t0, ep[0], hp[0], mats);
  V3 next_e, next_h;  // level 0 one layer ahead: its loads overlap an iteration's work
  unsigned next_m;
  load(t0 + 1, next_e, next_h, next_m);
  if constexpr (kCpml) fetch_psi(t0, 0);
  int slot0 = 0;    // CPML: the psi slot of level 1's layer (t0 + it, iteration it)
  __syncthreads();  // the zero fill (and the profiles) before the first writes
  esh[(0 * 2 + 1) * 2 * kPlane + erow] = ep[0].x;  // parity 1: "iteration -1"
  esh[((0 * 2 + 1) * 2 + 1) * kPlane + erow] = ep[0].z;
  __syncthreads();
  const Material uniform_m = table[0];

  for (int it = 0; it < iterations; ++it) {
    const int t = t0 + it, p = it & 1;
    V3 ec = next_e, hc = next_h;  // level s - 1's fields at the layer above level s's
    const unsigned mc = next_m;
    if constexpr (kCpml) {
      if (col_xy) {  // level 1's psi has arrived (before the next loads: the wait counts them too)
        copies_arrived();
        fetch_psi(t + 1, slot0 + 1 == kSlots ? 0 : slot0 + 1);
      }
    }
    if (it + 1 < iterations) load(t + 2, next_e, next_h, next_m);
    esh[(0 * 2 + p) * 2 * kPlane + erow] = ec.x;
    esh[((0 * 2 + p) * 2 + 1) * kPlane + erow] = ec.z;
#pragma unroll
    for (int s = 1; s <= K; ++s) {
      const int zs = t - s + 1;
      const Place pz = place(zs, a.nz, a.wrap & 4, a.deep_lo, a.deep_hi);
      const bool real = col_real && pz.real;
      const V3 e0 = ep[s - 1], h0 = hp[s - 1];  // level s - 1 at layer zs
      // H (h_columns): level s - 1's E at the cell, +x (the next lane), +y (shared, last
      // iteration's parity) and +z (ec).
      const float ez_px = __shfl_down_sync(kFullWarp, e0.z, 1), ey_px = __shfl_down_sync(kFullWarp, e0.y, 1);
      const float* e_prev = esh + ((s - 1) * 2 + (p ^ 1)) * 2 * kPlane;
      const float ex_py = e_prev[erow_up], ez_py = e_prev[kPlane + erow_up];
      V3 h{curl_step_h(h0.x, kh.cy, ez_py, e0.z, kh.cz, ec.y, e0.y),
           curl_step_h(h0.y, kh.cz, ec.x, e0.x, kh.cx, ez_px, e0.z),
           curl_step_h(h0.z, kh.cx, ey_px, e0.y, kh.cy, ex_py, e0.x)};
      // CPML, a cell in a slab: the slabs' corrections in slab order (x, y, z: the split step's
      // order of cpml calls). A z slab's psi is kept where the cell's E is exact (above), the
      // x and y slabs' at level K where the cell is the block's own.
      int z_slab = -1;
      bool in_slab = false;
      if constexpr (kCpml) {
        z_slab = pz.c < cpml.inner_lo[2] ? cpml.of[2][0] : pz.c >= cpml.inner_hi[2] ? cpml.of[2][1] : -1;
        in_slab = real && (col_xy || z_slab >= 0);
        if (in_slab)  // the differences along x, y, z: E_q at +1 minus at the cell (dq), E_p's (dp)
          correct_slabs(std::false_type{}, s, zs, pz.c, z_slab, slot0, h, {ez_px - e0.z, ex_py - e0.x, ec.y - e0.y},
                        {ey_px - e0.y, ez_py - e0.z, ec.x - e0.x}, {kh.cx, kh.cy, kh.cz});
      }
      if (!real) h = h0;  // a ghost keeps its value
      float* h_now = hsh + (s - 1) * 2 * kPlane;
      h_now[hrow] = h.x;
      h_now[kPlane + hrow] = h.z;
      __syncthreads();
      // E (e_columns): the new H at the cell, -x (the previous lane), -y (shared) and -z
      // (this level's H of the layer below, hp[s]).
      const float hy_mx = __shfl_up_sync(kFullWarp, h.y, 1), hz_mx = __shfl_up_sync(kFullWarp, h.z, 1);
      const float hx_my = h_now[hrow_down], hz_my = h_now[kPlane + hrow_down];
      const Material m = kUniform ? uniform_m : table[(mats >> (8 * (s - 1))) & 0xffu];
      V3 e{curl_step_e(e0.x, m.ca, m.cby, h.z, hz_my, m.cbz, h.y, hp[s].y),
           curl_step_e(e0.y, m.ca, m.cbz, h.x, hp[s].x, m.cbx, h.z, hz_mx),
           curl_step_e(e0.z, m.ca, m.cbx, h.y, hy_mx, m.cby, h.x, hx_my)};
      if constexpr (kCpml) {
        if (in_slab)  // the differences along x, y, z: the new H_q at the cell minus at -1 (dq), H_p's (dp)
          correct_slabs(std::true_type{}, s, zs, pz.c, z_slab, slot0, e, {h.z - hz_mx, h.x - hx_my, h.y - hp[s].y},
                        {h.y - hy_mx, h.z - hz_my, h.x - hp[s].x}, {-m.cbx, -m.cby, -m.cbz});
      }
      if (!real) {
        e = e0;
      } else {
        // The walls' zeroing after the step (zero_tangential_e of each pec axis).
        if (zero_x) e.y = e.z = 0.0f;
        if (zero_y) e.z = e.x = 0.0f;
        if ((a.pec & 4) && pz.c == 0) e.x = e.y = 0.0f;
      }
      if (s < K) {
        float* e_now = esh + (s * 2 + p) * 2 * kPlane;
        e_now[erow] = e.x;
        e_now[kPlane + erow] = e.z;
      } else if (out_col && zs >= z0 && zs < z1) {
        const std::int64_t c = std::int64_t(zs + 1) * a.plane + column;
        out.e[0][c] = e.x;
        out.e[1][c] = e.y;
        out.e[2][c] = e.z;
        out.h[0][c] = h.x;
        out.h[1][c] = h.y;
        out.h[2][c] = h.z;
      }
      ep[s - 1] = ec;
      hp[s - 1] = hc;
      ec = e;
      hc = h;
    }
    hp[K] = hc;
    mats = (mats << 8) | mc;
    slot0 = slot0 + 1 == kSlots ? 0 : slot0 + 1;
  }
}

template <int K, int V, bool kCpml>
void launch(const FieldPtrs& in, const FieldPtrs& out, const MaterialIndex* mat, const Material* table, bool uniform,
            const HCoeffs& k, const BlockedArgs& a, const BlockedCpml& cpml, cudaStream_t stream) {
  constexpr int kTileX = kLanes - 2 * K, kTileY = V - 2 * K;
  if (a.stretches.count <= 0) return;
  const dim3 grid(unsigned((a.nx + kTileX - 1) / kTileX), unsigned((a.ny + kTileY - 1) / kTileY),
                  unsigned(a.stretches.count));
  const dim3 block(kLanes, V);
  const std::size_t bytes = blocked_shared_bytes(K, V, kCpml);
  const auto kernel = uniform ? blocked_columns<K, V, true, kCpml> : blocked_columns<K, V, false, kCpml>;
  // Above 48 KiB of dynamic shared memory a kernel must say so (per device: every launch).
  TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  kernel<<<grid, block, bytes, stream>>>(in, out, mat, table, k, a, cpml);
}

template <int K>
void launch_k(int tile_y, const FieldPtrs& in, const FieldPtrs& out, const MaterialIndex* mat, const Material* table,
              bool uniform, const HCoeffs& k, const BlockedArgs& a, const BlockedCpml& cpml, cudaStream_t stream) {
  if (cpml.count > 0) {  // 32 x 24 for 32 x 32: the registers (blocked_columns)
    if (tile_y == 16)
      launch<K, 16, true>(in, out, mat, table, uniform, k, a, cpml, stream);
    else
      launch<K, 24, true>(in, out, mat, table, uniform, k, a, cpml, stream);
  } else if (tile_y == 16) {
    launch<K, 16, false>(in, out, mat, table, uniform, k, a, cpml, stream);
  } else {
    launch<K, 32, false>(in, out, mat, table, uniform, k, a, cpml, stream);
  }
}

}  // namespace

std::size_t blocked_shared_bytes(int steps, int tile_y, bool cpml) {
  // With CPML: per thread, the psi of its x and y slabs in steps + 1 layers' slots (psi_slot),
  // and the x slabs' profile by lane and the y slabs' by row (two float4 each).
  const std::size_t fields = std::size_t(steps) * 6 * std::size_t(tile_y + 1) * kLanes;
  const std::size_t slots = cpml ? std::size_t(2 * (steps + 1) * 4) * std::size_t(tile_y) * kLanes : 0;
  const std::size_t profiles = cpml ? std::size_t(kLanes + tile_y) * 2 * 4 : 0;
  return (fields + slots + profiles) * sizeof(float);
}

int blocked_stretch_layers(const Index3& n, int steps, const BlockedShape& shape, int sms) {
  const std::int64_t tiles = ((n[0] + kLanes - 2 * steps - 1) / (kLanes - 2 * steps)) *
                             ((n[1] + shape.tile_y - 2 * steps - 1) / (shape.tile_y - 2 * steps));
  std::int64_t stretches = shape.stretches;
  if (stretches <= 0) {
    // About four waves of blocks (one 1024-thread block per SM, two of 512), but stretches of
    // at least 8 K layers: each stretch fills its pipeline with 2K - 1 layers of its own.
    const std::int64_t resident = std::int64_t(std::max(sms, 1)) * (shape.tile_y == 16 ? 2 : 1);
    stretches = std::clamp<std::int64_t>((4 * resident + tiles - 1) / std::max<std::int64_t>(tiles, 1), 1,
                                         std::max<std::int64_t>(1, n[2] / (8 * steps)));
  }
  const std::int64_t kz = (n[2] + stretches - 1) / stretches;
  return int(std::clamp<std::int64_t>(kz, 1, std::max<std::int64_t>(n[2], 1)));
}

void launch_blocked_sweep(const FieldPtrs& in, const FieldPtrs& out, const MaterialIndex* mat, const Material* table,
                          bool uniform, const HCoeffs& k, const Layout& l, const Index3& n, int steps,
                          const BlockedShape& shape, int wrap, int pec, const std::array<int, 2>& deep, int sms,
                          const BlockedCpml& cpml, SweepPart part, cudaStream_t stream) {
  if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0) return;
  if (steps < 2 || steps > kMaxBlockedSteps)
    throw std::logic_error("launch_blocked_sweep: steps outside 2.." + std::to_string(kMaxBlockedSteps));
  for (const int planes : deep)
    if (planes != 0 && planes < steps)
      throw std::logic_error("launch_blocked_sweep: " + std::to_string(planes) + " neighbour planes for " +
                             std::to_string(steps) + " steps");
  int kz = blocked_stretch_layers(n, steps, shape, sms);
  ZStretches stretches = z_stretches(n[2], kz, SweepPart::all);
  if (part != SweepPart::all) {
    // Split around the plane exchange: at least 3 stretches, each of at least `steps` layers,
    // so that an inner stretch, which reads `steps` layers beyond each end, stays inside the
    // rank's own layers. Where the rank has too few layers for that, inner is empty and outer
    // is the whole pass.
    const int split_kz = std::min<int>(kz, int((n[2] + 2) / 3));
    const int count = split_kz > 0 ? int((n[2] + split_kz - 1) / split_kz) : 0;
    const int last = int(n[2]) - (count - 1) * split_kz;
    if (count >= 3 && split_kz >= steps && last >= steps) {
      kz = split_kz;
      stretches = z_stretches(n[2], kz, part);
    } else if (part == SweepPart::inner) {
      stretches.count = 0;
    }
  }
  BlockedArgs a{l.pitch, l.plane(), int(n[0]), int(n[1]), int(n[2]), kz, stretches, wrap, pec, deep[0], deep[1]};
  const int v = shape.tile_y == 16 ? 16 : 32;
  switch (steps) {
    case 2: launch_k<2>(v, in, out, mat, table, uniform, k, a, cpml, stream); break;
    case 3: launch_k<3>(v, in, out, mat, table, uniform, k, a, cpml, stream); break;
    default: launch_k<4>(v, in, out, mat, table, uniform, k, a, cpml, stream); break;
  }
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tessera::fdtd
