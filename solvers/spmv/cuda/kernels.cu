// The spmv kernels' launchers (launch.hpp) and their instantiations for float and double.
#include "core/cuda_check.hpp"
#include "solvers/spmv/cuda/kernels.cuh"
#include "solvers/spmv/cuda/launch.hpp"

namespace tessera::spmv::gpu {
namespace {

unsigned blocks_for(std::int64_t threads) {
  return static_cast<unsigned>((threads > 0 ? threads : 1) + kBlock - 1) / kBlock;
}
// Grid-stride kernels: enough blocks to fill the device, no more than the work needs.
unsigned stride_blocks(std::int64_t n) { return blocks_for(n) < 4096u ? blocks_for(n) : 4096u; }

template <int K>
void sum_chunks(double* partials, std::int64_t chunks, stream_t s) {
  sum_partials<K><<<1, kBlock, 0, s>>>(partials, chunks, partials + K * chunks);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void fill(T* y, T value, std::int64_t n, stream_t s) {
  if (n == 0) return;
  fill_kernel<<<stride_blocks(n), kBlock, 0, s>>>(y, value, n);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void gather(const T* x, const local_index* index, std::int64_t n, T* out, stream_t s) {
  if (n == 0) return;
  gather_kernel<<<stride_blocks(n), kBlock, 0, s>>>(x, index, n, out);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void scatter_add(const T* v, const local_index* index, std::int64_t n, T* y, stream_t s) {
  if (n == 0) return;
  scatter_add_kernel<<<stride_blocks(n), kBlock, 0, s>>>(v, index, n, y);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void add_rows(std::int64_t n, const std::int64_t* rp, const local_index* col, const T* val, const T* x,
              const local_index* rows, T* y, stream_t s) {
  if (n == 0) return;
  add_rows_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, rp, col, val, x, rows, y);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void csr_scalar(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val, const T* x, T* y,
                bool acc, stream_t s) {
  csr_scalar_kernel<<<blocks_for(rows), kBlock, 0, s>>>(rows, rp, col, val, x, y, acc);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void csr_vector(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val, const T* x, T* y,
                bool acc, stream_t s) {
  csr_vector_kernel<<<blocks_for(rows * kWarp), kBlock, 0, s>>>(rows, rp, col, val, x, y, acc);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void ell(std::int64_t rows, std::int64_t width, const local_index* col, const T* val, const T* x, T* y, bool acc,
         stream_t s) {
  ell_kernel<<<blocks_for(rows), kBlock, 0, s>>>(rows, width, col, val, x, y, acc);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void coo(std::int64_t n, const local_index* row, const local_index* col, const T* val, const T* x, T* y,
         Boundary<T>* bounds, stream_t s) {
  if (n == 0) return;
  const std::int64_t nb = coo_boundaries(n);
  coo_kernel<<<blocks_for(nb / 2 * kWarp), kBlock, 0, s>>>(n, row, col, val, x, y, bounds);
  TESSERA_CUDA_CHECK_LAUNCH();
  finish_boundaries<<<blocks_for(nb), kBlock, 0, s>>>(bounds, nb, y);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void merge_path(std::int64_t rows, std::int64_t nnz, const std::int64_t* row_ptr, const local_index* col, const T* val,
                const T* x, T* y, bool acc, Boundary<T>* bounds, stream_t s) {
  const std::int64_t nb = merge_boundaries(rows, nnz);
  if (nb == 0) return;
  merge_path_kernel<<<blocks_for(nb), kBlock, 0, s>>>(rows, nnz, row_ptr + 1, col, val, x, y, acc, bounds);
  TESSERA_CUDA_CHECK_LAUNCH();
  finish_boundaries<<<blocks_for(nb), kBlock, 0, s>>>(bounds, nb, y);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void binned(std::int64_t rows, const std::int64_t* rp, const local_index* col, const T* val, const T* x, T* y,
            bool acc, int lanes, std::int64_t long_row, std::int64_t long_count, const local_index* long_rows,
            const std::int64_t* chunk_ptr, const local_index* chunk_owner, std::int64_t chunks, T* partial,
            stream_t s) {
  const unsigned grid = blocks_for(rows * lanes);
  switch (lanes) {
    case 1: binned_short_kernel<T, 1><<<grid, kBlock, 0, s>>>(rows, rp, col, val, x, y, acc, long_row); break;
    case 2: binned_short_kernel<T, 2><<<grid, kBlock, 0, s>>>(rows, rp, col, val, x, y, acc, long_row); break;
    case 4: binned_short_kernel<T, 4><<<grid, kBlock, 0, s>>>(rows, rp, col, val, x, y, acc, long_row); break;
    case 8: binned_short_kernel<T, 8><<<grid, kBlock, 0, s>>>(rows, rp, col, val, x, y, acc, long_row); break;
    case 16: binned_short_kernel<T, 16><<<grid, kBlock, 0, s>>>(rows, rp, col, val, x, y, acc, long_row); break;
    default: binned_short_kernel<T, 32><<<grid, kBlock, 0, s>>>(rows, rp, col, val, x, y, acc, long_row); break;
  }
  TESSERA_CUDA_CHECK_LAUNCH();
  if (chunks == 0) return;
  binned_chunk_kernel<<<blocks_for(chunks * kWarp), kBlock, 0, s>>>(chunks, long_rows, chunk_ptr, chunk_owner, rp, col,
                                                                     val, x, partial);
  TESSERA_CUDA_CHECK_LAUNCH();
  binned_finish_kernel<<<blocks_for(long_count), kBlock, 0, s>>>(long_count, long_rows, chunk_ptr, partial, y, acc);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <class T>
void dot(const T* a, const T* b, std::int64_t n, double* partials, stream_t s) {
  const std::int64_t chunks = reduce_chunks(n);
  if (chunks == 0) return;
  dot_kernel<<<static_cast<unsigned>(chunks), kBlock, 0, s>>>(a, b, n, partials);
  TESSERA_CUDA_CHECK_LAUNCH();
  sum_chunks<1>(partials, chunks, s);
}

template <class T>
void residual(const T* r, const T* d, std::int64_t n, double* partials, stream_t s) {
  const std::int64_t chunks = reduce_chunks(n);
  if (chunks == 0) return;
  residual_kernel<T, false><<<static_cast<unsigned>(chunks), kBlock, 0, s>>>(0.0, nullptr, nullptr, d, nullptr,
                                                                           const_cast<T*>(r), n, partials);
  TESSERA_CUDA_CHECK_LAUNCH();
  sum_chunks<2>(partials, chunks, s);
}

template <class T>
void update_xr(double alpha, const T* p, const T* q, const T* d, T* x, T* r, std::int64_t n, double* partials,
               stream_t s) {
  const std::int64_t chunks = reduce_chunks(n);
  if (chunks == 0) return;
  residual_kernel<T, true><<<static_cast<unsigned>(chunks), kBlock, 0, s>>>(alpha, p, q, d, x, r, n, partials);
  TESSERA_CUDA_CHECK_LAUNCH();
  sum_chunks<2>(partials, chunks, s);
}

template <class T>
void update_p(double beta, const T* r, const T* d, T* p, std::int64_t n, stream_t s) {
  if (n == 0) return;
  update_p_kernel<<<stride_blocks(n), kBlock, 0, s>>>(beta, r, d, p, n);
  TESSERA_CUDA_CHECK_LAUNCH();
}

#define TESSERA_SPMV_INSTANTIATE(T)                                                                                  \
  template void fill<T>(T*, T, std::int64_t, stream_t);                                                             \
  template void gather<T>(const T*, const local_index*, std::int64_t, T*, stream_t);                                \
  template void scatter_add<T>(const T*, const local_index*, std::int64_t, T*, stream_t);                           \
  template void add_rows<T>(std::int64_t, const std::int64_t*, const local_index*, const T*, const T*,              \
                            const local_index*, T*, stream_t);                                                       \
  template void csr_scalar<T>(std::int64_t, const std::int64_t*, const local_index*, const T*, const T*, T*, bool,  \
                              stream_t);                                                                             \
  template void csr_vector<T>(std::int64_t, const std::int64_t*, const local_index*, const T*, const T*, T*, bool,  \
                              stream_t);                                                                             \
  template void ell<T>(std::int64_t, std::int64_t, const local_index*, const T*, const T*, T*, bool, stream_t);     \
  template void coo<T>(std::int64_t, const local_index*, const local_index*, const T*, const T*, T*, Boundary<T>*,  \
                       stream_t);                                                                                    \
  template void merge_path<T>(std::int64_t, std::int64_t, const std::int64_t*, const local_index*, const T*,        \
                              const T*, T*, bool, Boundary<T>*, stream_t);                                           \
  template void binned<T>(std::int64_t, const std::int64_t*, const local_index*, const T*, const T*, T*, bool, int,  \
                          std::int64_t, std::int64_t, const local_index*, const std::int64_t*, const local_index*,  \
                          std::int64_t, T*, stream_t);                                                             \
  template void dot<T>(const T*, const T*, std::int64_t, double*, stream_t);                                        \
  template void residual<T>(const T*, const T*, std::int64_t, double*, stream_t);                                   \
  template void update_xr<T>(double, const T*, const T*, const T*, T*, T*, std::int64_t, double*, stream_t);        \
  template void update_p<T>(double, const T*, const T*, T*, std::int64_t, stream_t);
TESSERA_SPMV_INSTANTIATE(float)
TESSERA_SPMV_INSTANTIATE(double)
#undef TESSERA_SPMV_INSTANTIATE

}  // namespace tessera::spmv::gpu
