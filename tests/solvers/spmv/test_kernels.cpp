// The cpu engine's variants against a plain serial product on adversarial matrices (empty
// rows, one row holding most nonzeros, 1x1, no nonzeros, rows longer than any chunk, unsorted
// and repeated entries, rectangular), in float64 and float32, y = A x and y += A x; the
// assembly of triplets; the hybrid split rules; merge-path coordinates; the vector kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/cpu/cpu_engine.hpp"
#include "solvers/spmv/formats.hpp"
#include "solvers/spmv/generate.hpp"
#include "solvers/spmv/stats.hpp"
#include "tests/solvers/spmv/spmv_test_util.hpp"

namespace tessera::spmv::test {
namespace {

const Variant kHostVariants[] = {Variant::csr_scalar, Variant::csr_vector, Variant::coo_segmented, Variant::hybrid,
                                 Variant::merge_path, Variant::csr_binned};

TEST(SpmvAssemble, SortsRowsAndSumsRepeatsInTheOrderGiven) {
  Triplets t;
  t.push(2, 5, 1.0);
  t.push(0, 3, 2.0);
  t.push(2, 1, 4.0);
  t.push(2, 5, 1e16);
  t.push(0, 3, -2.0);
  t.push(2, 5, -1e16);  // (1 + 1e16) - 1e16 = 0 in this order; 1 in another
  const RowBlock<double> a = assemble_rows(0, 4, t);
  EXPECT_EQ(a.row_ptr, (std::vector<std::int64_t>{0, 1, 1, 3, 3}));
  EXPECT_EQ(a.col, (std::vector<std::int64_t>{3, 1, 5}));
  EXPECT_EQ(a.val, (std::vector<double>{0.0, 4.0, 0.0}));
  Triplets outside;
  outside.push(9, 0, 1.0);
  EXPECT_THROW(assemble_rows(0, 4, outside), std::logic_error);
}

template <class T>
void check_variants(const TestMatrix& m, bool accumulate) {
  const RowBlock<double> rows = assemble_rows(0, m.rows, m.t);
  const CsrBlock<T> block = whole_block<T>(rows, m.cols);
  const std::vector<double> x = integer_vector(m.cols, 5);
  const std::vector<double> y0 = integer_vector(m.rows, 6, 50);
  std::vector<double> want = serial_product(rows, x);
  if (accumulate)
    for (std::size_t i = 0; i < want.size(); ++i) want[i] += y0[i];
  const std::vector<T> xt(x.begin(), x.end());
  for (Variant v : kHostVariants)
    for (HybridRule rule : {HybridRule::third, HybridRule::percentile80}) {
      if (rule == HybridRule::percentile80 && v != Variant::hybrid) continue;
      for (int threads : {1, 3}) {
        const auto engine = make_engine<T>(Backend::cpu, {v, rule, threads});
        const auto prepared = engine->prepare(block);
        EXPECT_EQ(prepared->info().nnz, rows.nnz());
        std::vector<T> y(static_cast<std::size_t>(m.rows), std::numeric_limits<T>::quiet_NaN());  // poisoned
        if (accumulate) y.assign(y0.begin(), y0.end());
        engine->multiply(*prepared, xt.data(), y.data(), accumulate);
        for (std::int64_t i = 0; i < m.rows; ++i)
          ASSERT_EQ(static_cast<double>(y[i]), want[i])
              << m.name << ", variant " << to_string(v) << " (" << to_string(rule) << "), " << threads << " threads, row "
              << i << (accumulate ? ", y += A x" : ", y = A x");
      }
    }
}

TEST(SpmvVariants, EveryVariantEqualsTheSerialProductOnAdversarialMatrices) {
  for (const TestMatrix& m : adversarial_matrices(17))
    for (bool acc : {false, true}) {
      check_variants<double>(m, acc);
      check_variants<float>(m, acc);
    }
}

TEST(SpmvVariants, RealValuesAgreeWithinRounding) {
  // Random reals on a power-law matrix: every variant sums rows in its own order.
  MatrixSpec s;
  s.source = MatrixSource::powerlaw;
  s.n = 3000;
  s.seed = 4;
  s.min_row_length = 2;
  s.exponent = 1.8;
  RowBlock<double> rows = generate_rows(s, {0, s.n});
  auto g = tessera::test::rng(8);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : rows.val) v = u(g);
  std::vector<double> x(static_cast<std::size_t>(s.n));
  for (double& v : x) v = u(g);
  const std::vector<double> want = serial_product(rows, x);
  std::vector<double> magnitude(want.size(), 0.0);
  for (std::int64_t r = 0; r < rows.rows(); ++r)
    for (std::int64_t q = rows.row_ptr[r]; q < rows.row_ptr[r + 1]; ++q) magnitude[r] += std::fabs(rows.val[q] * x[rows.col[q]]);
  const CsrBlock<double> block = whole_block<double>(rows, s.n);
  double worst = 0;
  for (Variant v : kHostVariants) {
    const auto engine = make_engine<double>(Backend::cpu, {v, HybridRule::third, 2});
    std::vector<double> y(want.size(), std::numeric_limits<double>::quiet_NaN());
    engine->multiply(*engine->prepare(block), x.data(), y.data(), false);
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double len = static_cast<double>(rows.row_ptr[i + 1] - rows.row_ptr[i]);
      const double bound = 2 * (len + 1) * std::numeric_limits<double>::epsilon() * magnitude[i];
      ASSERT_LE(std::fabs(y[i] - want[i]), bound) << to_string(v) << " row " << i;
    }
    worst = std::max(worst, static_cast<double>(rows.row_ptr.back()));
  }
  EXPECT_GT(worst, 0);
}

TEST(SpmvVariants, TheGpuOnlyVariantIsRefusedOnTheCpu) {
  EXPECT_THROW(make_engine<double>(Backend::cpu, {Variant::cusparse, HybridRule::third, 1}), InputError);
#if !defined(TESSERA_HAVE_CUDA)
  EXPECT_THROW(make_engine<double>(Backend::cuda, {Variant::csr_scalar, HybridRule::third, 1}), InputError);
#endif
}

// The rules by their definitions, on random lengths and on hand-made cases.
TEST(SpmvHybrid, TheWidthRulesFollowTheirDefinitions) {
  const std::vector<std::int64_t> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(hybrid_width(ten, HybridRule::third), 7);         // 4 of 10 rows (>= 1/3) reach 7, 3 reach 8
  EXPECT_EQ(hybrid_width(ten, HybridRule::percentile80), 8);  // 8 of 10 rows fit in 8
  EXPECT_EQ(hybrid_width(std::vector<std::int64_t>{}, HybridRule::third), 0);
  EXPECT_EQ(hybrid_width(std::vector<std::int64_t>{5}, HybridRule::third), 5);
  auto g = tessera::test::rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::int64_t> len(static_cast<std::size_t>(1 + g() % 60));
    for (auto& l : len) l = (g() % 4 == 0) ? static_cast<std::int64_t>(g() % 500) : static_cast<std::int64_t>(g() % 6);
    const double rows = static_cast<double>(len.size());
    auto reach = [&](std::int64_t w) { return std::count_if(len.begin(), len.end(), [&](auto l) { return l >= w; }); };
    auto fit = [&](std::int64_t w) { return std::count_if(len.begin(), len.end(), [&](auto l) { return l <= w; }); };
    const std::int64_t w3 = hybrid_width(len, HybridRule::third);
    EXPECT_GE(3.0 * reach(w3), rows);
    EXPECT_LT(3.0 * reach(w3 + 1), rows);
    const std::int64_t w8 = hybrid_width(len, HybridRule::percentile80);
    EXPECT_GE(fit(w8), 0.8 * rows);
    if (w8 > 0) {
      EXPECT_LT(fit(w8 - 1), 0.8 * rows);
    }
  }
}

TEST(SpmvHybrid, TheSplitHoldsEveryEntryOnce) {
  const TestMatrix m = adversarial_matrices(5)[1];  // one long row
  const RowBlock<double> rows = assemble_rows(0, m.rows, m.t);
  const CsrBlock<double> block = whole_block<double>(rows, m.cols);
  const std::vector<std::int64_t> lengths = row_lengths(block);
  const std::int64_t w = hybrid_width(lengths, HybridRule::third);
  const HybridFormat<double> h = make_hybrid(block, w);
  EXPECT_EQ(h.split.ell_entries + h.split.coo_entries, rows.nnz());
  EXPECT_EQ(h.split.ell_slots, w * m.rows);
  EXPECT_EQ(static_cast<std::int64_t>(h.coo_row.size()), h.split.coo_entries);
  EXPECT_GT(h.split.coo_entries, 0);
  // Rebuild the entries from both parts.
  std::map<std::pair<std::int64_t, std::int64_t>, double> got, want;
  for (std::int64_t r = 0; r < m.rows; ++r) {
    for (std::int64_t q = rows.row_ptr[r]; q < rows.row_ptr[r + 1]; ++q) want[{r, rows.col[q]}] += rows.val[q];
    for (std::int64_t k = 0; k < w; ++k)
      if (h.ell_col[k * m.rows + r] >= 0) got[{r, h.ell_col[k * m.rows + r]}] += h.ell_val[k * m.rows + r];
  }
  for (std::size_t k = 0; k < h.coo_row.size(); ++k) {
    if (k > 0) {
      EXPECT_LE(h.coo_row[k - 1], h.coo_row[k]);
    }
    got[{h.coo_row[k], h.coo_col[k]}] += h.coo_val[k];
  }
  EXPECT_EQ(got, want);
  // The engine reports the split it built.
  const auto engine = make_engine<double>(Backend::cpu, {Variant::hybrid, HybridRule::third, 1});
  EXPECT_EQ(engine->prepare(block)->info().hybrid.width, w);
}

// Every sub-warp width, on the adversarial shapes (rows on both sides of the long-row cut).
TEST(SpmvBinned, EveryLaneWidthEqualsTheSerialProduct) {
  for (const TestMatrix& m : adversarial_matrices(29)) {
    const RowBlock<double> rows = assemble_rows(0, m.rows, m.t);
    const CsrBlock<double> block = whole_block<double>(rows, m.cols);
    const std::vector<double> x = integer_vector(m.cols, 5);
    const std::vector<double> want = serial_product(rows, x);
    for (int lanes : {1, 2, 4, 8, 16, 32})
      for (int bands : {1, 2, 5}) {
        const auto engine =
            make_engine<double>(Backend::cpu, {Variant::csr_binned, HybridRule::third, 2, lanes, bands});
        const auto prepared = engine->prepare(block);
        EXPECT_EQ(prepared->info().binned_lanes, lanes);
        EXPECT_EQ(prepared->info().binned_bands, bands);
        std::vector<double> y(static_cast<std::size_t>(m.rows), std::numeric_limits<double>::quiet_NaN());
        engine->multiply(*prepared, x.data(), y.data(), false);
        for (std::int64_t i = 0; i < m.rows; ++i)
          ASSERT_EQ(y[i], want[i]) << m.name << ", lanes " << lanes << ", " << bands << " bands, row " << i;
      }
  }
}

// Column bands: every entry lands in the band of its column, renumbered from the band's first
// column, rows kept in order; the rule bands only wide rows over an x larger than a band.
TEST(SpmvBinned, ColumnBandsHoldEveryEntryOnceAndTheRuleBandsOnlyWideRows) {
  for (const TestMatrix& m : adversarial_matrices(31)) {
    const CsrBlock<double> a = whole_block<double>(assemble_rows(0, m.rows, m.t), m.cols);
    for (int bands : {1, 3, 7}) {
      std::vector<std::int64_t> begin;
      const std::vector<CsrBlock<double>> parts = split_column_bands(a, bands, begin);
      ASSERT_EQ(parts.size(), static_cast<std::size_t>(bands));
      EXPECT_EQ(begin.front(), 0);
      EXPECT_EQ(begin.back(), a.cols);
      for (std::int64_t r = 0; r < a.rows; ++r) {
        std::vector<std::pair<std::int64_t, double>> joined;
        for (int k = 0; k < bands; ++k) {
          EXPECT_EQ(parts[k].cols, begin[k + 1] - begin[k]);
          for (std::int64_t q = parts[k].row_ptr[r]; q < parts[k].row_ptr[r + 1]; ++q) {
            ASSERT_LT(parts[k].col[q], parts[k].cols);
            joined.push_back({begin[k] + parts[k].col[q], parts[k].val[q]});
          }
        }
        std::vector<std::pair<std::int64_t, double>> whole;
        for (std::int64_t q = a.row_ptr[r]; q < a.row_ptr[r + 1]; ++q) whole.push_back({a.col[q], a.val[q]});
        ASSERT_EQ(joined, whole) << m.name << ", " << bands << " bands, row " << r;
      }
    }
  }
  // Rows reaching across a 2.5-band-wide x: 3 bands; the same x with narrow rows: 1.
  const std::int64_t band = kBandBytes / 8, cols = 5 * band / 2;
  CsrBlock<double> wide, narrow;
  wide.rows = narrow.rows = 100;
  wide.cols = narrow.cols = cols;
  for (std::int64_t r = 0; r < 100; ++r) {
    for (std::int64_t c : {r, cols - 1 - r}) {
      wide.col.push_back(static_cast<local_index>(c));
      wide.val.push_back(1.0);
    }
    wide.row_ptr.push_back(static_cast<std::int64_t>(wide.col.size()));
    for (std::int64_t c : {r * 1000, r * 1000 + 7}) {
      narrow.col.push_back(static_cast<local_index>(c));
      narrow.val.push_back(1.0);
    }
    narrow.row_ptr.push_back(static_cast<std::int64_t>(narrow.col.size()));
  }
  EXPECT_EQ(column_bands(wide), 3);
  EXPECT_EQ(column_bands(narrow), 1);
  CsrBlock<float> wide32;
  wide32.rows = wide.rows;
  wide32.cols = wide.cols;
  wide32.row_ptr = wide.row_ptr;
  wide32.col = wide.col;
  wide32.val.assign(wide.val.size(), 1.0f);
  EXPECT_EQ(column_bands(wide32), 2);  // float values: a band holds twice the columns
}

// auto: csr-scalar on the cpu; on cuda the hybrid where it is nearly all ELL, csr-binned else.
TEST(SpmvAuto, TheRuleFollowsTheHybridSplit) {
  MatrixStats s;
  s.nnz = 1000;
  s.hybrid = {7, 1000, 1100, 0, 0};  // stencil-like: all ELL, 10% padding
  EXPECT_EQ(choose_variant(Variant::automatic, Backend::cuda, s), Variant::hybrid);
  EXPECT_EQ(choose_variant(Variant::automatic, Backend::cpu, s), Variant::csr_scalar);
  EXPECT_EQ(choose_variant(Variant::merge_path, Backend::cuda, s), Variant::merge_path);
  s.hybrid = {9, 900, 1000, 100, 50};  // a 10% tail: still the hybrid
  EXPECT_EQ(choose_variant(Variant::automatic, Backend::cuda, s), Variant::hybrid);
  s.hybrid = {9, 899, 1000, 101, 50};  // a longer tail
  EXPECT_EQ(choose_variant(Variant::automatic, Backend::cuda, s), Variant::csr_binned);
  s.hybrid = {9, 1000, 1501, 0, 0};  // padding over half the nonzeros
  EXPECT_EQ(choose_variant(Variant::automatic, Backend::cuda, s), Variant::csr_binned);
}

// The layout: long rows are exactly those past kBinnedRounds * lanes, their chunks cover them
// in order, and the width rule is the power of two at or above half the mean length.
TEST(SpmvBinned, TheLayoutCutsExactlyTheLongRows) {
  const std::vector<std::int64_t> lengths{0, 3, 64, 65, 1000, 7, 513, 256, 257};
  const BinnedFormat f = make_binned(lengths, 8);
  EXPECT_EQ(f.long_row, 64);
  EXPECT_EQ(f.long_rows, (std::vector<local_index>{3, 4, 6, 7, 8}));
  EXPECT_EQ(f.chunk_ptr, (std::vector<std::int64_t>{0, 1, 5, 8, 9, 11}));
  EXPECT_EQ(f.chunk_owner, (std::vector<local_index>{0, 1, 1, 1, 1, 2, 2, 2, 3, 4, 4}));
  EXPECT_EQ(f.chunks(), 11);
  EXPECT_EQ(binned_lanes(std::vector<std::int64_t>{}), 2);
  EXPECT_EQ(binned_lanes(std::vector<std::int64_t>{7, 7, 7}), 2);      // a fifth of the mean: 1.4
  EXPECT_EQ(binned_lanes(std::vector<std::int64_t>{15, 15}), 4);       // 3
  EXPECT_EQ(binned_lanes(std::vector<std::int64_t>{27, 27}), 8);       // 5.4
  EXPECT_EQ(binned_lanes(std::vector<std::int64_t>{40, 40}), 8);       // 8
  EXPECT_EQ(binned_lanes(std::vector<std::int64_t>{41, 41}), 16);      // 8.2
  EXPECT_EQ(binned_lanes(std::vector<std::int64_t>{1000, 2000}), 32);  // at most a warp
  EXPECT_THROW(make_binned(lengths, 3), std::invalid_argument);
}

TEST(SpmvMergePath, CoordinatesLieOnTheMergePath) {
  for (const TestMatrix& m : adversarial_matrices(9)) {
    const RowBlock<double> a = assemble_rows(0, m.rows, m.t);
    const std::int64_t rows = a.rows(), nnz = a.nnz();
    const std::int64_t* end = a.row_ptr.data() + 1;
    const std::int64_t step = std::max<std::int64_t>(1, (rows + nnz) / 997);
    for (std::int64_t d = 0; d <= rows + nnz; d += (d + step > rows + nnz && d != rows + nnz) ? rows + nnz - d : step) {
      const MergeCoordinate c = merge_path_search(d, end, rows, nnz);
      ASSERT_EQ(c.row + c.nz, d) << m.name;
      ASSERT_TRUE(c.row >= 0 && c.row <= rows && c.nz >= 0 && c.nz <= nnz) << m.name << " d " << d;
      if (c.row > 0) {
        ASSERT_LE(end[c.row - 1], c.nz) << m.name << " d " << d;  // rows consumed end before nz
      }
      if (c.row < rows) {
        ASSERT_GE(end[c.row], c.nz) << m.name << " d " << d;  // the next row is not done
      }
      if (d == rows + nnz) break;
    }
  }
}

TEST(SpmvVectors, ReductionsRepeatBitForBitWhateverTheThreadCount) {
  const std::int64_t n = 3 * kReduceChunk + 17;
  auto g = tessera::test::rng(12);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(n), b(n), d(n);
  for (std::int64_t i = 0; i < n; ++i) {
    a[i] = u(g);
    b[i] = u(g);
    d[i] = 0.5 + u(g) * 0.25;
  }
  auto e1 = make_cpu_engine<double>({Variant::csr_scalar, HybridRule::third, 1});
  auto e4 = make_cpu_engine<double>({Variant::csr_scalar, HybridRule::third, 4});
  const double d1 = e1->dot(a.data(), b.data(), n);
  EXPECT_EQ(d1, e4->dot(a.data(), b.data(), n));
  double plain = 0;
  for (std::int64_t i = 0; i < n; ++i) plain += a[i] * b[i];
  EXPECT_NEAR(d1, plain, 1e-12 * n);
  EXPECT_EQ(e1->residual_dots(a.data(), d.data(), n), e4->residual_dots(a.data(), d.data(), n));

  // The fused updates: x += alpha p, r -= alpha q, and the dots of the new r.
  std::vector<double> x1(n, 1.0), r1 = a, x4 = x1, r4 = a;
  const auto s1 = e1->update_xr(0.3, b.data(), d.data(), d.data(), x1.data(), r1.data(), n);
  const auto s4 = e4->update_xr(0.3, b.data(), d.data(), d.data(), x4.data(), r4.data(), n);
  EXPECT_EQ(s1, s4);
  EXPECT_EQ(x1, x4);
  EXPECT_EQ(r1, r4);
  for (std::int64_t i = 0; i < n; i += 97) {
    EXPECT_EQ(x1[i], 1.0 + 0.3 * b[i]);
    EXPECT_EQ(r1[i], a[i] - 0.3 * d[i]);
  }
  EXPECT_EQ(s1, e1->residual_dots(r1.data(), d.data(), n));
  std::vector<double> p(n, 2.0);
  e4->update_p(0.5, r1.data(), d.data(), p.data(), n);
  for (std::int64_t i = 0; i < n; i += 89) EXPECT_EQ(p[i], d[i] * r1[i] + 0.5 * 2.0);
  std::vector<local_index> index{5, 0, 17, 5};
  std::vector<double> out(4, -1);
  e4->gather(a.data(), index.data(), 4, out.data());
  EXPECT_EQ(out, (std::vector<double>{a[5], a[0], a[17], a[5]}));
}

}  // namespace
}  // namespace tessera::spmv::test
