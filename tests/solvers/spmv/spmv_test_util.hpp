#pragma once
// Helpers of the spmv tests: matrices built the hard way (adversarial shapes), a plain serial
// product to compare with, and whole vectors gathered from the ranks.
#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "comm/collectives.hpp"
#include "solvers/spmv/matrix.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::spmv::test {

// A matrix as unsorted triplets with its shape.
struct TestMatrix {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  Triplets t;
};

// Small integer values (exact in float32 sums of a few thousand terms).
inline double small_int(std::mt19937_64& g) {
  const auto v = static_cast<int>(g() % 9) - 4;
  return v == 0 ? 5.0 : v;
}

// Shapes that break naive kernels: empty rows, a row holding most nonzeros, 1x1, no
// nonzeros, rows longer than any chunk, unsorted and repeated entries, rectangular.
inline std::vector<TestMatrix> adversarial_matrices(std::uint64_t seed) {
  auto g = tessera::test::rng(seed);
  std::vector<TestMatrix> out;
  auto add = [&](std::string name, std::int64_t rows, std::int64_t cols) -> Triplets& {
    out.push_back({std::move(name), rows, cols, {}});
    return out.back().t;
  };
  {
    Triplets& t = add("empty rows", 97, 97);
    for (std::int64_t i = 0; i < 97; i += 7)
      for (int k = 0; k < 3; ++k) t.push(i, static_cast<std::int64_t>(g() % 97), small_int(g));
  }
  {
    Triplets& t = add("one row holds most nonzeros", 300, 300);
    for (int k = 0; k < 20000; ++k) t.push(3, static_cast<std::int64_t>(g() % 300), small_int(g));
    for (std::int64_t i = 0; i < 300; ++i)
      if (i % 2) t.push(i, (i * 7) % 300, small_int(g));
  }
  {
    Triplets& t = add("1x1", 1, 1);
    t.push(0, 0, 3.0);
  }
  add("no nonzeros", 40, 40);
  add("0x0", 0, 0);
  {
    Triplets& t = add("rows longer than a block", 5, 6000);
    for (std::int64_t i = 0; i < 5; ++i)
      for (std::int64_t j = 0; j < 6000; j += (i == 2 ? 1 : 2)) t.push(i, j, small_int(g));
  }
  {
    Triplets& t = add("unsorted and repeated entries", 150, 150);
    for (int k = 0; k < 3000; ++k) t.push(static_cast<std::int64_t>(g() % 150), static_cast<std::int64_t>(g() % 20) * 7, small_int(g));
    std::vector<std::size_t> order(t.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), g);
    Triplets s;
    for (std::size_t k : order) s.push(t.row[k], t.col[k], t.val[k]);
    t = s;
  }
  {
    Triplets& t = add("rectangular 60 x 250, varied rows", 60, 250);
    for (std::int64_t i = 0; i < 60; ++i) {
      const std::int64_t len = (i % 5 == 0) ? 0 : static_cast<std::int64_t>(g() % 40) + (i == 17 ? 2500 : 0);
      for (std::int64_t k = 0; k < len; ++k) t.push(i, static_cast<std::int64_t>(g() % 250), small_int(g));
    }
  }
  {
    Triplets& t = add("wide 3 x 9000", 3, 9000);
    for (std::int64_t k = 0; k < 12000; ++k) t.push(k % 3, static_cast<std::int64_t>(g() % 9000), small_int(g));
  }
  return out;
}

// y = A x in double, each row summed in order.
inline std::vector<double> serial_product(const RowBlock<double>& a, std::span<const double> x) {
  std::vector<double> y(static_cast<std::size_t>(a.rows()));
  for (std::int64_t r = 0; r < a.rows(); ++r) {
    double s = 0;
    for (std::int64_t q = a.row_ptr[r]; q < a.row_ptr[r + 1]; ++q) s += a.val[q] * x[a.col[q]];
    y[r] = s;
  }
  return y;
}

// A whole-matrix CSR block (columns as local indices: all columns owned).
template <class T>
CsrBlock<T> whole_block(const RowBlock<double>& a, std::int64_t cols) {
  CsrBlock<T> b;
  b.rows = a.rows();
  b.cols = cols;
  b.row_ptr = a.row_ptr;
  for (std::int64_t j : a.col) b.col.push_back(static_cast<local_index>(j));
  for (double v : a.val) b.val.push_back(static_cast<T>(v));
  return b;
}

// Random integers in [-k, k].
inline std::vector<double> integer_vector(std::int64_t n, std::uint64_t seed, int k = 3) {
  auto g = tessera::test::rng(seed);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& e : v) e = static_cast<double>(static_cast<int>(g() % (2 * k + 1)) - k);
  return v;
}

// The whole vector from each rank's part at `offset` (every rank gets it; exact: the other
// ranks add zeros).
template <class T>
std::vector<double> gather_all(comm::Context& ctx, std::span<const T> part, std::int64_t offset, std::int64_t n) {
  std::vector<double> all(static_cast<std::size_t>(n), 0.0);
  for (std::size_t i = 0; i < part.size(); ++i) all[offset + i] = static_cast<double>(part[i]);
  comm::allreduce_inplace(ctx, std::span<double>(all), comm::Op::sum);
  return all;
}

}  // namespace tessera::spmv::test
