// The cuda engine: the variants' layouts in device memory, the kernels of kernels.cu (through
// launch.hpp) on one stream, and cuSPARSE's default CSR SpMV (cusparseSpMV) as the baseline.
// Host C++: nvcc compiles only the kernels.
#include "solvers/spmv/cuda/cuda_engine.hpp"

#include <cusparse.h>
#include <fmt/format.h>

#include <algorithm>
#include <type_traits>
#include <stdexcept>
#include <vector>

#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/stream.hpp"
#include "solvers/spmv/cuda/launch.hpp"

namespace tessera::spmv {
namespace {

#define SPMV_CUSPARSE_CHECK(call)                                                                          \
  do {                                                                                                     \
    const cusparseStatus_t st_ = (call);                                                                   \
    if (st_ != CUSPARSE_STATUS_SUCCESS)                                                                    \
      throw CudaError(fmt::format("{} failed: {} ({}:{})", #call, cusparseGetErrorString(st_), __FILE__, __LINE__)); \
  } while (0)

template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty()) d.upload(host);
  return d;
}


template <class T>
class CudaBlock final : public PreparedBlock {
 public:
  CudaBlock(const CsrBlock<T>& a, Variant v, HybridRule rule, int lanes, int bands, cusparseHandle_t handle) {
    info_.rows = a.rows;
    info_.cols = a.cols;
    info_.nnz = a.nnz();
    info_.variant = v;
    info_.hybrid.coo_entries = a.nnz();
    if (v == Variant::hybrid) {
      const HybridFormat<T> h = make_hybrid(a, hybrid_width(row_lengths(a), rule));
      info_.hybrid = h.split;
      width = h.width;
      ell_col = to_device(h.ell_col);
      ell_val = to_device(h.ell_val);
      coo_row = to_device(h.coo_row);
      col = to_device(h.coo_col);
      val = to_device(h.coo_val);
      coo_entries = static_cast<std::int64_t>(h.coo_row.size());
    } else if (v == Variant::csr_binned) {
      const std::vector<BinnedBand<T>> host = make_binned_bands(a, lanes, bands);
      info_.describe_binned(host);
      binned.reserve(host.size());
      for (const BinnedBand<T>& b : host) binned.emplace_back(b);
    } else {
      row_ptr = to_device(a.row_ptr);
      col = to_device(a.col);
      val = to_device(a.val);
      if (v == Variant::coo_segmented) {
        coo_row = to_device(coo_rows(a));
        coo_entries = a.nnz();
      }
    }
    if (coo_entries > 0) bounds = DeviceBuffer<gpu::Boundary<T>>(gpu::coo_boundaries(coo_entries));
    if (v == Variant::merge_path && a.rows + a.nnz() > 0)
      bounds = DeviceBuffer<gpu::Boundary<T>>(gpu::merge_boundaries(a.rows, a.nnz()));
    if (v == Variant::cusparse && a.nnz() > 0) prepare_cusparse(a, handle);
  }
  ~CudaBlock() override {
    if (mat) cusparseDestroySpMat(mat);
  }
  CudaBlock(const CudaBlock&) = delete;
  CudaBlock& operator=(const CudaBlock&) = delete;

  DeviceBuffer<std::int64_t> row_ptr;
  DeviceBuffer<local_index> col, coo_row;  // coo_row: coo-segmented, or the hybrid's tail rows
  DeviceBuffer<T> val;                     // (with col: the CSR, or the hybrid's tail)
  std::int64_t coo_entries = 0;
  std::int64_t width = 0;  // hybrid: ELL part
  DeviceBuffer<local_index> ell_col;
  DeviceBuffer<T> ell_val;
  mutable DeviceBuffer<gpu::Boundary<T>> bounds;  // coo-segmented and merge-path: scratch for the chunks' boundary rows
  // cusparse: the matrix with the index width cuSPARSE takes (32-bit while nnz < 2^31).
  cusparseSpMatDescr_t mat = nullptr;
  DeviceBuffer<std::int32_t> row_ptr32;
  DeviceBuffer<std::int64_t> col64;
  mutable DeviceBuffer<std::byte> work;
  mutable bool work_ready = false;
  // csr-binned (formats.hpp): per column band, its CSR rows, the long rows and their chunks,
  // and a partial sum per chunk.
  struct Band {
    explicit Band(const BinnedBand<T>& b)
        : first_col(b.first_col), lanes(b.layout.lanes), long_row(b.layout.long_row),
          long_count(static_cast<std::int64_t>(b.layout.long_rows.size())), chunks(b.layout.chunks()),
          row_ptr(to_device(b.csr.row_ptr)), col(to_device(b.csr.col)), val(to_device(b.csr.val)),
          long_rows(to_device(b.layout.long_rows)), chunk_owner(to_device(b.layout.chunk_owner)),
          chunk_ptr(to_device(b.layout.chunk_ptr)), chunk_sums(static_cast<std::size_t>(chunks)) {}
    std::int64_t first_col;
    int lanes;
    std::int64_t long_row, long_count, chunks;
    DeviceBuffer<std::int64_t> row_ptr;
    DeviceBuffer<local_index> col;
    DeviceBuffer<T> val;
    DeviceBuffer<local_index> long_rows, chunk_owner;
    DeviceBuffer<std::int64_t> chunk_ptr;
    mutable DeviceBuffer<T> chunk_sums;
  };
  std::vector<Band> binned;

 private:
  void prepare_cusparse(const CsrBlock<T>& a, cusparseHandle_t) {
    const cudaDataType vt = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
    if (a.nnz() < (std::int64_t{1} << 31)) {
      std::vector<std::int32_t> rp(a.row_ptr.begin(), a.row_ptr.end());
      row_ptr32 = to_device(rp);
      SPMV_CUSPARSE_CHECK(cusparseCreateCsr(&mat, a.rows, a.cols, a.nnz(), row_ptr32.data(), col.data(), val.data(),
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
    } else {
      std::vector<std::int64_t> c(a.col.begin(), a.col.end());
      col64 = to_device(c);
      row_ptr = to_device(a.row_ptr);
      SPMV_CUSPARSE_CHECK(cusparseCreateCsr(&mat, a.rows, a.cols, a.nnz(), row_ptr.data(), col64.data(), val.data(),
                                            CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, vt));
    }
  }
};

template <class T>
class CudaEngine final : public Engine<T> {
 public:
  explicit CudaEngine(const EngineOptions& o) : variant_(o.variant), rule_(o.hybrid_rule), lanes_(o.binned_lanes), bands_(o.binned_bands) {
    partials_ = DeviceBuffer<double>(2 * 65536 + 2);
    result_ = PinnedBuffer<double>(2);
    if (variant_ == Variant::cusparse) {
      SPMV_CUSPARSE_CHECK(cusparseCreate(&handle_));
      SPMV_CUSPARSE_CHECK(cusparseSetStream(handle_, stream_.get()));
    }
  }
  ~CudaEngine() override {
    if (handle_) cusparseDestroy(handle_);
  }

  Variant variant() const override { return variant_; }
  Memory memory() const override { return Memory::device; }
  stream_t stream() const override { return stream_.get(); }
  void synchronize() override { stream_.synchronize(); }
  std::string describe() const override {
    return fmt::format("cuda engine, variant {}{}", to_string(variant_),
                       variant_ == Variant::hybrid ? fmt::format(" (rule {})", to_string(rule_)) : std::string());
  }

  std::unique_ptr<PreparedBlock> prepare(const CsrBlock<T>& block) override {
    return std::make_unique<CudaBlock<T>>(block, variant_, rule_, lanes_, bands_, handle_);
  }

  void multiply(const PreparedBlock& prepared, const T* x, T* y, bool acc) override {
    const auto* b = dynamic_cast<const CudaBlock<T>*>(&prepared);
    if (!b) throw std::logic_error("spmv: a block prepared by another engine");
    const std::int64_t rows = b->info().rows;
    if (rows == 0) return;
    const stream_t s = stream_.get();
    switch (b->info().variant) {
      case Variant::csr_scalar:
        return gpu::csr_scalar(rows, b->row_ptr.data(), b->col.data(), b->val.data(), x, y, acc, s);
      case Variant::csr_vector:
        return gpu::csr_vector(rows, b->row_ptr.data(), b->col.data(), b->val.data(), x, y, acc, s);
      case Variant::coo_segmented:
        if (!acc) gpu::fill(y, T(0), rows, s);
        return gpu::coo(b->coo_entries, b->coo_row.data(), b->col.data(), b->val.data(), x, y, b->bounds.data(), s);
      case Variant::hybrid:
        gpu::ell(rows, b->width, b->ell_col.data(), b->ell_val.data(), x, y, acc, s);
        return gpu::coo(b->coo_entries, b->coo_row.data(), b->col.data(), b->val.data(), x, y, b->bounds.data(), s);
      case Variant::merge_path:
        return gpu::merge_path(rows, b->info().nnz, b->row_ptr.data(), b->col.data(), b->val.data(), x, y, acc,
                               b->bounds.data(), s);
      case Variant::csr_binned:
        for (std::size_t k = 0; k < b->binned.size(); ++k) {  // band after band: y += A_k x_k
          const auto& d = b->binned[k];
          gpu::binned(rows, d.row_ptr.data(), d.col.data(), d.val.data(), x + d.first_col, y, acc || k > 0, d.lanes,
                      d.long_row, d.long_count, d.long_rows.data(), d.chunk_ptr.data(), d.chunk_owner.data(),
                      d.chunks, d.chunk_sums.data(), s);
        }
        return;
      case Variant::cusparse: return cusparse(*b, x, y, acc);
      default: throw std::logic_error("spmv: unresolved variant");
    }
  }

  void gather(const T* x, const local_index* index, std::int64_t n, T* out) override {
    gpu::gather(x, index, n, out, stream_.get());
  }
  void scatter_add(const T* v, const local_index* index, std::int64_t n, T* y) override {
    gpu::scatter_add(v, index, n, y, stream_.get());
  }
  void add_rows(std::int64_t n, const std::int64_t* rp, const local_index* col, const T* val, const T* x,
                const local_index* rows, T* y) override {
    gpu::add_rows(n, rp, col, val, x, rows, y, stream_.get());
  }
  void fill(T* y, T value, std::int64_t n) override { gpu::fill(y, value, n, stream_.get()); }

  double dot(const T* a, const T* b, std::int64_t n) override {
    gpu::dot(a, b, n, partials(n), stream_.get());
    return totals<1>(n)[0];
  }
  std::array<double, 2> residual_dots(const T* r, const T* d, std::int64_t n) override {
    gpu::residual(r, d, n, partials(n), stream_.get());
    return totals<2>(n);
  }
  std::array<double, 2> update_xr(double alpha, const T* p, const T* q, const T* d, T* x, T* r,
                                  std::int64_t n) override {
    gpu::update_xr(alpha, p, q, d, x, r, n, partials(n), stream_.get());
    return totals<2>(n);
  }
  void update_p(double beta, const T* r, const T* d, T* p, std::int64_t n) override {
    gpu::update_p(beta, r, d, p, n, stream_.get());
  }

 private:
  // Room for the partial sums of a reduction over n elements (K per chunk, then K totals).
  double* partials(std::int64_t n) {
    const auto need = static_cast<std::size_t>(2 * gpu::reduce_chunks(n) + 2);
    if (need > partials_.size()) partials_ = DeviceBuffer<double>(need);
    return partials_.data();
  }
  // Waits for the K totals of the reduction just queued.
  template <int K>
  std::array<double, 2> totals(std::int64_t n) {
    std::array<double, 2> out{0.0, 0.0};
    const std::int64_t chunks = gpu::reduce_chunks(n);
    if (chunks == 0) return out;
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(result_.data(), partials_.data() + K * chunks, K * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    for (int k = 0; k < K; ++k) out[k] = result_.data()[k];
    return out;
  }

  void cusparse(const CudaBlock<T>& b, const T* x, T* y, bool acc) {
    if (!b.mat) {  // no nonzeros: cuSPARSE is not asked about an empty matrix
      if (!acc) gpu::fill(y, T(0), b.info().rows, stream_.get());
      return;
    }
    const cudaDataType vt = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    SPMV_CUSPARSE_CHECK(cusparseCreateDnVec(&vx, b.info().cols, const_cast<T*>(x), vt));
    SPMV_CUSPARSE_CHECK(cusparseCreateDnVec(&vy, b.info().rows, y, vt));
    const T one = T(1), beta = acc ? T(1) : T(0);
    if (!b.work_ready) {
      std::size_t bytes = 0;
      SPMV_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b.mat, vx, &beta, vy,
                                                  vt, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
      b.work = DeviceBuffer<std::byte>(std::max<std::size_t>(bytes, 1));
      b.work_ready = true;
    }
    SPMV_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b.mat, vx, &beta, vy, vt,
                                     CUSPARSE_SPMV_ALG_DEFAULT, b.work.data()));
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
  }

  Variant variant_;
  HybridRule rule_;
  int lanes_;
  int bands_;
  Stream stream_;
  cusparseHandle_t handle_ = nullptr;
  DeviceBuffer<double> partials_;
  PinnedBuffer<double> result_;
};

}  // namespace

template <class T>
std::unique_ptr<Engine<T>> make_cuda_engine(const EngineOptions& options) {
  if (options.variant == Variant::automatic) throw std::logic_error("make_cuda_engine: resolve Variant::automatic first");
  return std::make_unique<CudaEngine<T>>(options);
}

template std::unique_ptr<Engine<float>> make_cuda_engine<float>(const EngineOptions&);
template std::unique_ptr<Engine<double>> make_cuda_engine<double>(const EngineOptions&);

}  // namespace tessera::spmv
