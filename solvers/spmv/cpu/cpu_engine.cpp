#include "solvers/spmv/cpu/cpu_engine.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace tessera::spmv {
namespace {

template <class T>
class CpuBlock final : public PreparedBlock {
 public:
  CpuBlock(const CsrBlock<T>& a, Variant v, HybridRule rule, int lanes, int bands) {
    info_.rows = a.rows;
    info_.cols = a.cols;
    info_.nnz = a.nnz();
    info_.variant = v;
    info_.hybrid.coo_entries = a.nnz();
    if (v == Variant::hybrid) {
      const std::vector<std::int64_t> lengths = row_lengths(a);
      hybrid = make_hybrid(a, hybrid_width(lengths, rule));
      info_.hybrid = hybrid.split;
    } else if (v == Variant::csr_binned) {
      binned = make_binned_bands(a, lanes, bands);
      info_.describe_binned(binned);
    } else {
      csr = a;
      if (v == Variant::coo_segmented) rows = coo_rows(a);
    }
  }
  CsrBlock<T> csr;                // all but hybrid and csr-binned
  std::vector<local_index> rows;  // coo-segmented
  HybridFormat<T> hybrid;         // hybrid
  std::vector<BinnedBand<T>> binned;  // csr-binned
};

template <class T>
class CpuEngine final : public Engine<T> {
 public:
  explicit CpuEngine(const EngineOptions& o)
      : variant_(o.variant), rule_(o.hybrid_rule), lanes_(o.binned_lanes), bands_(o.binned_bands), threads_(o.threads > 0 ? o.threads : omp_get_max_threads()) {}

  Variant variant() const override { return variant_; }
  Memory memory() const override { return Memory::host; }
  stream_t stream() const override { return nullptr; }
  void synchronize() override {}
  std::string describe() const override {
    return fmt::format("cpu engine ({} OpenMP threads), variant {}{}", threads_, to_string(variant_),
                       variant_ == Variant::hybrid ? fmt::format(" (rule {})", to_string(rule_)) : std::string());
  }

  std::unique_ptr<PreparedBlock> prepare(const CsrBlock<T>& block) override {
    return std::make_unique<CpuBlock<T>>(block, variant_, rule_, lanes_, bands_);
  }

  void multiply(const PreparedBlock& prepared, const T* x, T* y, bool accumulate) override {
    const auto* b = dynamic_cast<const CpuBlock<T>*>(&prepared);
    if (!b) throw std::logic_error("spmv: a block prepared by another engine");
    switch (b->info().variant) {
      case Variant::csr_vector: return csr_vector(b->csr, x, y, accumulate);
      case Variant::coo_segmented:
        return coo(b->rows.data(), b->csr.col.data(), b->csr.val.data(), b->csr.nnz(), b->csr.rows, x, y, accumulate);
      case Variant::hybrid: return hybrid(b->hybrid, x, y, accumulate);
      case Variant::merge_path: return merge_path(b->csr, x, y, accumulate);
      case Variant::csr_binned:
        for (std::size_t k = 0; k < b->binned.size(); ++k)  // band after band, as the GPU does
          binned(b->binned[k].csr, b->binned[k].layout, x + b->binned[k].first_col, y, accumulate || k > 0);
        return;
      default: return csr_scalar(b->csr, x, y, accumulate);
    }
  }

  void gather(const T* x, const local_index* index, std::int64_t n, T* out) override {
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) out[i] = x[index[i]];
  }

  void scatter_add(const T* v, const local_index* index, std::int64_t n, T* y) override {
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) y[index[i]] += v[i];
  }

  void add_rows(std::int64_t n, const std::int64_t* rp, const local_index* col, const T* val, const T* x,
                const local_index* rows, T* y) override {
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t r = 0; r < n; ++r) {
      T s = T(0);
      for (std::int64_t q = rp[r]; q < rp[r + 1]; ++q) s += val[q] * x[col[q]];
      y[rows[r]] += s;
    }
  }

  void fill(T* y, T value, std::int64_t n) override {
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) y[i] = value;
  }

  double dot(const T* a, const T* b, std::int64_t n) override {
    return chunked<1>(n, [&](std::int64_t i, double* s) { s[0] += static_cast<double>(a[i]) * b[i]; })[0];
  }

  std::array<double, 2> residual_dots(const T* r, const T* d, std::int64_t n) override {
    return chunked<2>(n, [&](std::int64_t i, double* s) {
      const double ri = r[i];
      s[0] += ri * (d ? static_cast<double>(d[i]) * ri : ri);
      s[1] += ri * ri;
    });
  }

  std::array<double, 2> update_xr(double alpha, const T* p, const T* q, const T* d, T* x, T* r,
                                  std::int64_t n) override {
    const T a = static_cast<T>(alpha);
    return chunked<2>(n, [&](std::int64_t i, double* s) {
      const double ri = cg_update_xr(a, p[i], q[i], x[i], r[i]);
      s[0] += ri * (d ? static_cast<double>(d[i]) * ri : ri);
      s[1] += ri * ri;
    });
  }

  void update_p(double beta, const T* r, const T* d, T* p, std::int64_t n) override {
    const T b = static_cast<T>(beta);
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) p[i] = cg_update_p(b, d ? d[i] * r[i] : r[i], p[i]);
  }

 private:
  // Sums f over [0, n) into K doubles: a partial sum per fixed chunk, then the chunks in order.
  template <int K, class F>
  std::array<double, K> chunked(std::int64_t n, F&& f) {
    const std::int64_t chunks = (n + kReduceChunk - 1) / kReduceChunk;
    std::vector<std::array<double, K>> part(static_cast<std::size_t>(chunks));
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      std::array<double, K> s{};
      const std::int64_t e = std::min(n, (c + 1) * kReduceChunk);
      for (std::int64_t i = c * kReduceChunk; i < e; ++i) f(i, s.data());
      part[c] = s;
    }
    std::array<double, K> total{};
    for (const auto& s : part)
      for (int k = 0; k < K; ++k) total[k] += s[k];
    return total;
  }

  void csr_scalar(const CsrBlock<T>& a, const T* x, T* y, bool acc) {
    const std::int64_t* rp = a.row_ptr.data();
    const local_index* col = a.col.data();
    const T* val = a.val.data();
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 512)
    for (std::int64_t r = 0; r < a.rows; ++r) {
      T s = T(0);
      for (std::int64_t q = rp[r]; q < rp[r + 1]; ++q) s += val[q] * x[col[q]];
      y[r] = acc ? y[r] + s : s;
    }
  }

  void csr_vector(const CsrBlock<T>& a, const T* x, T* y, bool acc) {
    const std::int64_t* rp = a.row_ptr.data();
    const local_index* col = a.col.data();
    const T* val = a.val.data();
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 512)
    for (std::int64_t r = 0; r < a.rows; ++r) {
      T lane[32] = {};
      for (std::int64_t q = rp[r]; q < rp[r + 1]; ++q) lane[(q - rp[r]) & 31] += val[q] * x[col[q]];
      for (int off = 16; off > 0; off >>= 1)
        for (int l = 0; l < off; ++l) lane[l] += lane[l + off];
      y[r] = acc ? y[r] + lane[0] : lane[0];
    }
  }

  // Segmented row sums over nonzeros ordered by row (`row` per nonzero), in fixed chunks.
  void coo(const local_index* row, const local_index* col, const T* val, std::int64_t nnz, std::int64_t rows,
           const T* x, T* y, bool acc) {
    if (!acc) fill(y, T(0), rows);
    const std::int64_t chunks = (nnz + kCooChunk - 1) / kCooChunk;
    // A chunk's first row may have begun in the chunk before, its last may go on in the next:
    // those two sums are added after the parallel part, in chunk order.
    std::vector<std::int64_t> first_row(static_cast<std::size_t>(chunks), -1), last_row(first_row);
    std::vector<T> first_sum(first_row.size()), last_sum(first_row.size());
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t b = c * kCooChunk, e = std::min(nnz, b + kCooChunk);
      std::int64_t cur = row[b];
      bool first = true;
      T s = T(0);
      for (std::int64_t k = b; k < e; ++k) {
        if (row[k] != cur) {
          if (first) {
            first_row[c] = cur;
            first_sum[c] = s;
            first = false;
          } else {
            y[cur] += s;  // a row wholly inside this chunk
          }
          cur = row[k];
          s = T(0);
        }
        s += val[k] * x[col[k]];
      }
      last_row[c] = cur;
      last_sum[c] = s;
    }
    for (std::int64_t c = 0; c < chunks; ++c) {
      if (first_row[c] >= 0) y[first_row[c]] += first_sum[c];
      y[last_row[c]] += last_sum[c];
    }
  }

  void hybrid(const HybridFormat<T>& h, const T* x, T* y, bool acc) {
    const std::int64_t rows = h.rows, width = h.width;
    const local_index* ec = h.ell_col.data();
    const T* ev = h.ell_val.data();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      T s = T(0);
      for (std::int64_t k = 0; k < width; ++k) {
        const local_index c = ec[k * rows + r];
        if (c >= 0) s += ev[k * rows + r] * x[c];
      }
      y[r] = acc ? y[r] + s : s;
    }
    coo(h.coo_row.data(), h.coo_col.data(), h.coo_val.data(), static_cast<std::int64_t>(h.coo_row.size()), rows, x, y,
        true);
  }

  void merge_path(const CsrBlock<T>& a, const T* x, T* y, bool acc) {
    const std::int64_t rows = a.rows, nnz = a.nnz(), items = rows + nnz;
    const std::int64_t* row_end = a.row_ptr.data() + 1;
    const local_index* col = a.col.data();
    const T* val = a.val.data();
    const std::int64_t chunks = (items + kMergeChunk - 1) / kMergeChunk;
    std::vector<std::int64_t> carry_row(static_cast<std::size_t>(chunks), -1);
    std::vector<T> carry_sum(carry_row.size());
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t d0 = c * kMergeChunk, d1 = std::min(items, d0 + kMergeChunk);
      const MergeCoordinate from = merge_path_search(d0, row_end, rows, nnz);
      const MergeCoordinate to = merge_path_search(d1, row_end, rows, nnz);
      std::int64_t nz = from.nz;
      T s = T(0);
      for (std::int64_t r = from.row; r < to.row; ++r) {  // rows whose end lies in this share
        for (; nz < row_end[r]; ++nz) s += val[nz] * x[col[nz]];
        y[r] = acc ? y[r] + s : s;
        s = T(0);
      }
      if (nz < to.nz) {  // the start of a row that a later share ends
        for (; nz < to.nz; ++nz) s += val[nz] * x[col[nz]];
        carry_row[c] = to.row;
        carry_sum[c] = s;
      }
    }
    for (std::int64_t c = 0; c < chunks; ++c)
      if (carry_row[c] >= 0) y[carry_row[c]] += carry_sum[c];
  }

  // The GPU kernel's order: `lanes` partial sums of a short row (lane l takes entries l,
  // l + lanes, ...) joined as a tree; a long row's chunks summed that way with 32 lanes, then
  // added in chunk order.
  template <int MaxLanes = 32>
  static T lanes_sum(const T* val, const local_index* col, const T* x, std::int64_t b, std::int64_t e, int lanes) {
    T lane[MaxLanes] = {};
    for (std::int64_t q = b; q < e; ++q) lane[(q - b) & (lanes - 1)] += val[q] * x[col[q]];
    for (int off = lanes / 2; off > 0; off >>= 1)
      for (int l = 0; l < off; ++l) lane[l] += lane[l + off];
    return lane[0];
  }

  void binned(const CsrBlock<T>& a, const BinnedFormat& f, const T* x, T* y, bool acc) {
    const std::int64_t* rp = a.row_ptr.data();
    const local_index* col = a.col.data();
    const T* val = a.val.data();
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 512)
    for (std::int64_t r = 0; r < a.rows; ++r) {
      if (rp[r + 1] - rp[r] > f.long_row) continue;
      const T s = lanes_sum(val, col, x, rp[r], rp[r + 1], f.lanes);
      y[r] = acc ? y[r] + s : s;
    }
    const auto long_rows = static_cast<std::int64_t>(f.long_rows.size());
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (std::int64_t k = 0; k < long_rows; ++k) {
      const std::int64_t r = f.long_rows[k];
      T s = T(0);
      for (std::int64_t b = rp[r]; b < rp[r + 1]; b += kBinnedChunk)
        s += lanes_sum(val, col, x, b, std::min(b + kBinnedChunk, rp[r + 1]), 32);
      y[r] = acc ? y[r] + s : s;
    }
  }

  Variant variant_;
  HybridRule rule_;
  int lanes_;
  int bands_;
  int threads_;
};

}  // namespace

template <class T>
std::unique_ptr<Engine<T>> make_cpu_engine(const EngineOptions& options) {
  if (options.variant == Variant::automatic) throw std::logic_error("make_cpu_engine: resolve Variant::automatic first");
  return std::make_unique<CpuEngine<T>>(options);
}

template std::unique_ptr<Engine<float>> make_cpu_engine<float>(const EngineOptions&);
template std::unique_ptr<Engine<double>> make_cpu_engine<double>(const EngineOptions&);

}  // namespace tessera::spmv
