#pragma once
// Launchers of the spmv kernels (kernels.cu), callable from host C++ (cuda_engine.cpp). Every
// launch is queued on `stream` and checked; the shapes are fixed here so that sums come out in
// the same order on every run (kernels.cuh says which order).
#include <cstdint>

#include "core/stream.hpp"
#include "solvers/spmv/types.hpp"

namespace tessera::spmv::gpu {

inline constexpr int kBlock = 256;
inline constexpr int kWarp = 32;
inline constexpr std::int64_t kCooChunk = 32 * 16;  // nonzeros per warp (16 rounds of 32)
inline constexpr std::int64_t kMergeItems = 16;     // rows + nonzeros per thread
inline constexpr std::int64_t kReduceChunk = 4096;  // elements per partial sum of a dot product

// One value of a chunk's boundary row, finished by finish_boundaries (row -1: none).
template <class T>
struct Boundary {
  std::int64_t row;
  T sum;
};

inline std::int64_t coo_boundaries(std::int64_t nnz) { return 2 * ((nnz + kCooChunk - 1) / kCooChunk); }
inline std::int64_t merge_boundaries(std::int64_t rows, std::int64_t nnz) {
  return (rows + nnz + kMergeItems - 1) / kMergeItems;
}
inline std::int64_t reduce_chunks(std::int64_t n) { return (n + kReduceChunk - 1) / kReduceChunk; }

template <class T>
void fill(T* y, T value, std::int64_t n, stream_t s);
template <class T>
void gather(const T* x, const local_index* index, std::int64_t n, T* out, stream_t s);
template <class T>
void scatter_add(const T* v, const local_index* index, std::int64_t n, T* y, stream_t s);
template <class T>
void add_rows(std::int64_t n, const std::int64_t* rp, const local_index* col, const T* val, const T* x,
              const local_index* rows, T* y, stream_t s);
template <class T>
void csr_scalar(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val, const T* x, T* y,
                bool acc, stream_t s);
template <class T>
void csr_vector(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val, const T* x, T* y,
                bool acc, stream_t s);
template <class T>
void ell(std::int64_t rows, std::int64_t width, const local_index* col, const T* val, const T* x, T* y, bool acc,
         stream_t s);
// y += the products of n nonzeros ordered by row; `bounds` holds coo_boundaries(n).
template <class T>
void coo(std::int64_t n, const local_index* row, const local_index* col, const T* val, const T* x, T* y,
         Boundary<T>* bounds, stream_t s);
// y = A x (or += when acc) by merge-path; `bounds` holds merge_boundaries(rows, nnz).
template <class T>
void merge_path(std::int64_t rows, std::int64_t nnz, const std::int64_t* row_ptr, const local_index* col, const T* val,
                const T* x, T* y, bool acc, Boundary<T>* bounds, stream_t s);
// y = A x (or += when acc) by csr-binned (formats.hpp): short rows with `lanes` lanes each,
// the long rows' chunks into `partial` (one per chunk), then added in order.
template <class T>
void binned(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val, const T* x, T* y,
            bool acc, int lanes, std::int64_t long_row, std::int64_t long_count, const local_index* long_rows,
            const std::int64_t* chunk_ptr, const local_index* chunk_owner, std::int64_t chunks, T* partial,
            stream_t s);
// Dot products into partials[reduce_chunks(n)][K], then their sums into partials + K * chunks.
template <class T>
void dot(const T* a, const T* b, std::int64_t n, double* partials, stream_t s);
template <class T>
void residual(const T* r, const T* d, std::int64_t n, double* partials, stream_t s);
template <class T>
void update_xr(double alpha, const T* p, const T* q, const T* d, T* x, T* r, std::int64_t n, double* partials,
               stream_t s);
template <class T>
void update_p(double beta, const T* r, const T* d, T* p, std::int64_t n, stream_t s);

}  // namespace tessera::spmv::gpu
