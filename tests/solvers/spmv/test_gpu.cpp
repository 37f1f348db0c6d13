// The cuda engine against the serial product and the cpu engine: every variant (cuSPARSE's
// included) on the adversarial matrices, with small-integer values so every sum is exact
// whatever its order (the results must be equal, not close); the reductions repeat bit for
// bit; a CG on the GPU takes the cpu engine's iterations to the same solution.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/formats.hpp"
#include "solvers/spmv/generate.hpp"
#include "tests/solvers/spmv/spmv_test_util.hpp"

#if defined(TESSERA_HAVE_CUDA)
#include "core/backend.hpp"

namespace tessera::spmv::test {
namespace {

const Variant kGpuVariants[] = {Variant::csr_scalar, Variant::csr_vector, Variant::coo_segmented, Variant::hybrid,
                                Variant::merge_path, Variant::csr_binned, Variant::cusparse};

bool have_gpu() { return visible_device_count() > 0; }

template <class T>
std::vector<T> on_gpu(Engine<T>& e, const PreparedBlock& a, const std::vector<T>& x, const std::vector<T>& y0,
                      bool acc) {
  Array<T> dx(Memory::device, x.size()), dy(Memory::device, y0.size());
  dx.upload(x);
  dy.upload(y0);
  e.multiply(a, dx.data(), dy.data(), acc);
  e.synchronize();
  return dy.download();
}

template <class T>
void check_variants(const TestMatrix& m, bool acc) {
  const RowBlock<double> rows = assemble_rows(0, m.rows, m.t);
  const CsrBlock<T> block = whole_block<T>(rows, m.cols);
  const std::vector<double> x = integer_vector(m.cols, 5), y0 = integer_vector(m.rows, 6, 50);
  std::vector<double> want = serial_product(rows, x);
  if (acc)
    for (std::size_t i = 0; i < want.size(); ++i) want[i] += y0[i];
  const std::vector<T> xt(x.begin(), x.end());
  // Poisoned where y = A x must overwrite, the given values where y += A x adds.
  std::vector<T> yt(static_cast<std::size_t>(m.rows), std::numeric_limits<T>::quiet_NaN());
  if (acc) yt.assign(y0.begin(), y0.end());
  for (Variant v : kGpuVariants)
    for (HybridRule rule : {HybridRule::third, HybridRule::percentile80}) {
      if (rule == HybridRule::percentile80 && v != Variant::hybrid) continue;
      const auto engine = make_engine<T>(Backend::cuda, {v, rule, 0});
      const auto prepared = engine->prepare(block);
      const std::vector<T> y = on_gpu(*engine, *prepared, xt, yt, acc);
      for (std::int64_t i = 0; i < m.rows; ++i)
        ASSERT_EQ(static_cast<double>(y[i]), want[i]) << m.name << ", variant " << to_string(v) << " ("
                                                      << to_string(rule) << "), row " << i
                                                      << (acc ? ", y += A x" : ", y = A x");
    }
}

TEST(SpmvGpu, EveryVariantEqualsTheSerialProductOnAdversarialMatrices) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  for (const TestMatrix& m : adversarial_matrices(23))
    for (bool acc : {false, true}) {
      check_variants<double>(m, acc);
      check_variants<float>(m, acc);
    }
}

TEST(SpmvGpu, LongRowsSpanningManyChunksAndThreads) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  // One row of 100003 nonzeros between short ones: it spans ~200 coo chunks and ~6000
  // merge-path shares, so the boundary sums are finished across many of them.
  TestMatrix m;
  m.name = "one long row";
  m.rows = 50;
  m.cols = 200000;
  auto g = tessera::test::rng(3);
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const std::int64_t len = r == 17 ? 100003 : r % 4;
    for (std::int64_t k = 0; k < len; ++k) m.t.push(r, (r * 7919 + k * 13) % m.cols, small_int(g));
  }
  check_variants<double>(m, false);
  check_variants<double>(m, true);
}

// csr-binned sums in the same order on both engines: bitwise equal on random reals, at every
// sub-warp width, with rows on both sides of the long-row cut.
TEST(SpmvGpu, BinnedEqualsTheCpuBitForBitOnRealValues) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  MatrixSpec s;
  s.source = MatrixSource::powerlaw;
  s.n = 20000;
  s.seed = 12;
  s.min_row_length = 1;
  s.exponent = 1.7;
  s.max_row_length = 5000;
  RowBlock<double> rows = generate_rows(s, {0, s.n});
  auto g = tessera::test::rng(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : rows.val) v = u(g);
  std::vector<double> x(static_cast<std::size_t>(s.n)), y0(x.size());
  for (double& v : x) v = u(g);
  for (double& v : y0) v = u(g);
  const CsrBlock<double> block = whole_block<double>(rows, s.n);
  for (int lanes : {1, 2, 4, 8, 16, 32})
    for (bool acc : {false, true}) {
      EngineOptions o{Variant::csr_binned, HybridRule::third, 2, lanes, lanes == 8 ? 3 : 1};
      const auto cpu = make_engine<double>(Backend::cpu, o);
      const auto gpu = make_engine<double>(Backend::cuda, o);
      const auto pc = cpu->prepare(block);
      const auto pg = gpu->prepare(block);
      ASSERT_GT(pg->info().binned_long_rows, 0) << "lanes " << lanes;
      ASSERT_EQ(pg->info().binned_bands, o.binned_bands);
      std::vector<double> want = y0;
      cpu->multiply(*pc, x.data(), want.data(), acc);
      const std::vector<double> got = on_gpu(*gpu, *pg, x, y0, acc);
      for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << "lanes " << lanes << ", row " << i << (acc ? ", y += A x" : ", y = A x");
    }
}

TEST(SpmvGpu, ReductionsRepeatBitForBitAndAgreeWithTheCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  const std::int64_t n = 1000003;
  auto g = tessera::test::rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(n), b(n), d(n);
  for (std::int64_t i = 0; i < n; ++i) a[i] = u(g), b[i] = u(g), d[i] = 1.0 + u(g) * u(g);
  const auto gpu = make_engine<double>(Backend::cuda, {Variant::csr_scalar, HybridRule::third, 0});
  const auto cpu = make_engine<double>(Backend::cpu, {Variant::csr_scalar, HybridRule::third, 2});
  Array<double> da(Memory::device, n), db(Memory::device, n), dd(Memory::device, n);
  da.upload(a);
  db.upload(b);
  dd.upload(d);
  const double first = gpu->dot(da.data(), db.data(), n);
  EXPECT_EQ(gpu->dot(da.data(), db.data(), n), first);
  const double want = cpu->dot(a.data(), b.data(), n);
  EXPECT_NEAR(first, want, 1e-12 * n);
  const auto rd = gpu->residual_dots(da.data(), dd.data(), n);
  const auto rc = cpu->residual_dots(a.data(), d.data(), n);
  EXPECT_NEAR(rd[0], rc[0], 1e-10 * std::fabs(rc[0]));
  EXPECT_NEAR(rd[1], rc[1], 1e-10 * std::fabs(rc[1]));
  EXPECT_EQ(gpu->residual_dots(da.data(), dd.data(), n), rd);
}

}  // namespace
}  // namespace tessera::spmv::test
#else
TEST(SpmvGpu, NeedsCuda) { GTEST_SKIP() << "this tessera was built without CUDA (gpu test)"; }
#endif
