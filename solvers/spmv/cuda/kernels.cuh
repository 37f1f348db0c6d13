#pragma once
// The spmv kernels (included by kernels.cu only; launch.hpp declares their launchers). Every kernel sums in an order fixed by
// the matrix and the launch shape, never by timing: no atomics, so a run repeats bit for bit
// (CG restarts rely on it). The orders follow the cpu engine's (cpu/cpu_engine.cpp): rows of
// csr-scalar and ELL in order, csr-vector's 32 lanes reduced as a tree, coo-segmented and
// merge-path by chunks whose boundary rows are finished afterwards in chunk order.
#include <cstdint>

#include "solvers/spmv/cuda/launch.hpp"
#include "solvers/spmv/formats.hpp"
#include "solvers/spmv/types.hpp"

namespace tessera::spmv::gpu {

// Products rounded before they are added (no fused multiply-add): csr-binned matches the cpu
// engine's sums bit for bit that way.
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }

__device__ inline std::int64_t lmin(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

template <class T>
__global__ void fill_kernel(T* y, T value, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    y[i] = value;
}

template <class T>
__global__ void gather_kernel(const T* x, const local_index* index, std::int64_t n, T* out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = x[index[i]];
}

// y[index[i]] += v[i]: the ghost block's sums into the rows they belong to (indices distinct).
template <class T>
__global__ void scatter_add_kernel(const T* v, const local_index* index, std::int64_t n, T* y) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    y[index[i]] += v[i];
}

// Short rows added into rows of y (Engine::add_rows): a thread per row, its sum from zero in
// CSR order, then one read-modify-write of its row of y.
template <class T>
__global__ void add_rows_kernel(std::int64_t n, const std::int64_t* rp, const local_index* col, const T* val,
                                const T* x, const local_index* rows, T* y) {
  const std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (r >= n) return;
  T s = T(0);
  for (std::int64_t q = rp[r]; q < rp[r + 1]; ++q) s += val[q] * x[col[q]];
  y[rows[r]] += s;
}

// The seed's per-row kernel: a thread per row.
template <class T>
__global__ void csr_scalar_kernel(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val,
                                  const T* x, T* y, bool acc) {
  const std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  T s = T(0);
  for (std::int64_t q = rp[r]; q < rp[r + 1]; ++q) s += val[q] * x[col[q]];
  y[r] = acc ? y[r] + s : s;
}

// A warp per row: lane l sums the row's entries l, l + 32, ...; the lanes meet in a tree.
template <class T>
__global__ void csr_vector_kernel(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val,
                                  const T* x, T* y, bool acc) {
  const std::int64_t r = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;  // whole warps leave together
  T s = T(0);
  for (std::int64_t q = rp[r] + lane; q < rp[r + 1]; q += kWarp) s += val[q] * x[col[q]];
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) y[r] = acc ? y[r] + s : s;
}

// The hybrid's ELL part: a thread per row, slots column-major (coalesced), -1 = padding.
template <class T>
__global__ void ell_kernel(std::int64_t rows, std::int64_t width, const local_index* ec, const T* ev, const T* x, T* y,
                           bool acc) {
  const std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  T s = T(0);
  for (std::int64_t k = 0; k < width; ++k) {
    const local_index c = ec[k * rows + r];
    if (c >= 0) s += ev[k * rows + r] * x[c];
  }
  y[r] = acc ? y[r] + s : s;
}

// The seed's per-element kernel: a warp per chunk of kCooChunk nonzeros (ordered by row),
// 32 products at a time joined by a segmented scan over the lanes. Rows that begin and end
// inside the chunk are added to y here (no other chunk touches them); the chunk's first row
// (when it ends inside the chunk) and its last row go to `bounds` (2 per chunk).
template <class T>
__global__ void coo_kernel(std::int64_t nnz, const local_index* row, const local_index* col, const T* val, const T* x,
                           T* y, Boundary<T>* bounds) {
  const std::int64_t chunk = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  const std::int64_t begin = chunk * kCooChunk;
  if (begin >= nnz) return;
  const std::int64_t end = lmin(nnz, begin + kCooChunk);
  std::int64_t carry_row = -1;
  T carry = T(0);
  bool first_open = true;
  Boundary<T> first{-1, T(0)};
  for (std::int64_t base = begin; base < end; base += kWarp) {
    const std::int64_t i = base + lane;
    const bool valid = i < end;
    const std::int64_t r = valid ? row[i] : -2;
    // The previous round's last run ended with that round when this one starts another row:
    // it closes here, like a run closed inside a round.
    const std::int64_t r0 = __shfl_sync(0xffffffffu, r, 0);
    if (carry_row >= 0 && r0 != carry_row) {
      if (lane == 0) {
        if (first_open) first = {carry_row, carry};
        else y[carry_row] += carry;
      }
      first_open = false;
      carry_row = -1;
      carry = T(0);
    }
    T v = valid ? val[i] * x[col[i]] : T(0);
    for (int off = 1; off < kWarp; off <<= 1) {  // inclusive scan within runs of equal rows
      const T up = __shfl_up_sync(0xffffffffu, v, off);
      const std::int64_t up_row = __shfl_up_sync(0xffffffffu, r, off);
      if (lane >= off && up_row == r) v += up;
    }
    if (r == carry_row) v += carry;  // the run that continues the previous round's last row
    const int last_lane = static_cast<int>(lmin(kWarp - 1, end - 1 - base));
    const std::int64_t next_row = __shfl_down_sync(0xffffffffu, r, 1);
    const bool closed = valid && lane < last_lane && next_row != r;
    const unsigned closed_mask = __ballot_sync(0xffffffffu, closed);
    if (closed) {
      const bool is_first = first_open && lane == __ffs(closed_mask) - 1;
      if (is_first) first = {r, v};
      else y[r] += v;
    }
    if (closed_mask) first_open = false;
    carry_row = __shfl_sync(0xffffffffu, r, last_lane);
    carry = __shfl_sync(0xffffffffu, v, last_lane);
  }
  if (lane == 0) bounds[2 * chunk + 1] = {carry_row, carry};
  const unsigned has_first = __ballot_sync(0xffffffffu, first.row >= 0);
  if (has_first) {
    const int holder = __ffs(has_first) - 1;
    const std::int64_t fr = __shfl_sync(0xffffffffu, first.row, holder);
    const T fs = __shfl_sync(0xffffffffu, first.sum, holder);
    if (lane == 0) bounds[2 * chunk] = {fr, fs};
  } else if (lane == 0) {
    bounds[2 * chunk] = {-1, T(0)};
  }
}

// Merge-path (formats.hpp): a thread per kMergeItems items of the merge of row ends and
// nonzeros. Rows whose end falls in a thread's share are written by it; the start of a row
// a later share ends goes to `bounds` (1 per thread).
template <class T>
__global__ void merge_path_kernel(std::int64_t rows, std::int64_t nnz, const std::int64_t* row_end,
                                  const local_index* col, const T* val, const T* x, T* y, bool acc,
                                  Boundary<T>* bounds) {
  const std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t items = rows + nnz;
  const std::int64_t d0 = t * kMergeItems;
  if (d0 >= items) return;
  const std::int64_t d1 = lmin(items, d0 + kMergeItems);
  const MergeCoordinate from = merge_path_search(d0, row_end, rows, nnz);
  const MergeCoordinate to = merge_path_search(d1, row_end, rows, nnz);
  std::int64_t nz = from.nz;
  T s = T(0);
  for (std::int64_t r = from.row; r < to.row; ++r) {
    for (; nz < row_end[r]; ++nz) s += val[nz] * x[col[nz]];
    y[r] = acc ? y[r] + s : s;
    s = T(0);
  }
  Boundary<T> b{-1, T(0)};
  if (nz < to.nz) {
    for (; nz < to.nz; ++nz) s += val[nz] * x[col[nz]];
    b = {to.row, s};
  }
  bounds[t] = b;
}

// csr-binned's short rows (formats.hpp): a sub-warp of `Lanes` lanes per row; rows longer
// than `long_row` are left to the chunk kernels. Every lane takes part in the shuffles (rows
// past the end or long count as empty), so full-warp masks stay valid.
template <class T, int Lanes>
__global__ void binned_short_kernel(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val,
                                    const T* x, T* y, bool acc, std::int64_t long_row) {
  const std::int64_t r = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / Lanes;
  const int lane = threadIdx.x % Lanes;
  std::int64_t b = 0, e = 0;
  if (r < rows) {
    b = rp[r];
    e = rp[r + 1];
  }
  const bool mine = r < rows && e - b <= long_row;
  if (!mine) e = b;
  T s = T(0);
#pragma unroll 4
  for (std::int64_t q = b + lane; q < e; q += Lanes) s += mul_rn(val[q], x[col[q]]);
  for (int off = Lanes / 2; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off, Lanes);
  if (lane == 0 && mine) y[r] = acc ? y[r] + s : s;
}

// csr-binned's long rows: a warp per chunk of kBinnedChunk nonzeros, its sum to partial[c].
template <class T>
__global__ void binned_chunk_kernel(std::int64_t chunks, const local_index* long_rows, const std::int64_t* chunk_ptr,
                                    const local_index* chunk_owner, const std::int64_t* rp, const local_index* col,
                                    const T* val, const T* x, T* partial) {
  const std::int64_t c = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (c >= chunks) return;  // whole warps leave together
  const local_index k = chunk_owner[c];
  const std::int64_t r = long_rows[k];
  const std::int64_t b = rp[r] + (c - chunk_ptr[k]) * kBinnedChunk;
  const std::int64_t e = lmin(b + kBinnedChunk, rp[r + 1]);
  T s = T(0);
#pragma unroll
  for (int round = 0; round < kBinnedChunk / kWarp; ++round) {
    const std::int64_t q = b + round * kWarp + lane;
    if (q < e) s += mul_rn(val[q], x[col[q]]);
  }
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) partial[c] = s;
}

// csr-binned: a thread per long row adds its chunks' sums in order.
template <class T>
__global__ void binned_finish_kernel(std::int64_t long_count, const local_index* long_rows,
                                     const std::int64_t* chunk_ptr, const T* partial, T* y, bool acc) {
  const std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (k >= long_count) return;
  T s = T(0);
  for (std::int64_t c = chunk_ptr[k]; c < chunk_ptr[k + 1]; ++c) s += partial[c];
  const std::int64_t r = long_rows[k];
  y[r] = acc ? y[r] + s : s;
}

// Adds the boundary values to y, each row's in list order. `bounds` is ordered by row (row
// -1: empty slots); the thread of a row's first value sums the row's run and adds it.
template <class T>
__global__ void finish_boundaries(const Boundary<T>* bounds, std::int64_t n, T* y) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::int64_t r = bounds[i].row;
  if (r < 0) return;
  std::int64_t prev = i - 1;
  while (prev >= 0 && bounds[prev].row < 0) --prev;
  if (prev >= 0 && bounds[prev].row == r) return;  // not the first value of its row
  T s = bounds[i].sum;
  for (std::int64_t k = i + 1; k < n; ++k) {
    const std::int64_t rk = bounds[k].row;
    if (rk < 0) continue;
    if (rk != r) break;
    s += bounds[k].sum;
  }
  y[r] += s;
}

// Dot products: a block per chunk of kReduceChunk elements (a fixed tree inside), then one
// block over the chunks' partial sums (a fixed tree): the same bits on every run.
template <int K>
__device__ void block_sum(double (&v)[K], double* out) {
  __shared__ double part[K][kBlock / kWarp];
  for (int k = 0; k < K; ++k) {
    for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], off);
    if (threadIdx.x % kWarp == 0) part[k][threadIdx.x / kWarp] = v[k];
  }
  __syncthreads();
  if (threadIdx.x < kWarp) {
    for (int k = 0; k < K; ++k) {
      double s = threadIdx.x < kBlock / kWarp ? part[k][threadIdx.x] : 0.0;
      for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
      if (threadIdx.x == 0) out[k] = s;
    }
  }
}

// Sums the partials[chunks][K] into out[K] in one block.
template <int K>
__global__ void sum_partials(const double* partials, std::int64_t chunks, double* out) {
  double v[K] = {};
  for (std::int64_t c = threadIdx.x; c < chunks; c += blockDim.x)
    for (int k = 0; k < K; ++k) v[k] += partials[c * K + k];
  block_sum<K>(v, out);
}

template <class T>
__global__ void dot_kernel(const T* a, const T* b, std::int64_t n, double* partials) {
  const std::int64_t begin = blockIdx.x * kReduceChunk, end = lmin(n, begin + kReduceChunk);
  double v[1] = {0.0};
  for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) v[0] += double(a[i]) * double(b[i]);
  block_sum<1>(v, partials + blockIdx.x);
}

// {sum r d r, sum r r} (d null: identity), optionally after the CG's x and r updates.
template <class T, bool Update>
__global__ void residual_kernel(double alpha, const T* p, const T* q, const T* d, T* x, T* r, std::int64_t n,
                                double* partials) {
  const std::int64_t begin = blockIdx.x * kReduceChunk, end = lmin(n, begin + kReduceChunk);
  const T a = static_cast<T>(alpha);
  double v[2] = {0.0, 0.0};
  for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    double ri;
    if constexpr (Update) {
      T xi = x[i], rn = r[i];
      ri = double(cg_update_xr(a, p[i], q[i], xi, rn));
      x[i] = xi;
      r[i] = rn;
    } else {
      ri = double(r[i]);
    }
    v[0] += ri * (d ? double(d[i]) * ri : ri);
    v[1] += ri * ri;
  }
  block_sum<2>(v, partials + 2 * blockIdx.x);
}

template <class T>
__global__ void update_p_kernel(double beta, const T* r, const T* d, T* p, std::int64_t n) {
  const T b = static_cast<T>(beta);
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    p[i] = cg_update_p(b, d ? d[i] * r[i] : r[i], p[i]);
}

}  // namespace tessera::spmv::gpu
