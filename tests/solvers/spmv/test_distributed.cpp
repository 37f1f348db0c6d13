// The distributed matrix on 1..4 ranks against one serial computation: generated matrices and
// files give the same rows for any rank count, rows are balanced by nonzeros, the ghost
// exchange delivers the owners' values, and y = A x equals the serial product bitwise (small
// integer matrices and x) for every variant. Matrix Market and HDF5 CSR files are read in
// parallel (repeats summed in file order) and bad files are refused on every rank with a
// message naming the file and the line or dataset.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "comm/transport.hpp"
#include "core/error.hpp"
#include "io/h5.hpp"
#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/distributed_spmv.hpp"
#include "solvers/spmv/generate.hpp"
#include "solvers/spmv/matrix_io.hpp"
#include "solvers/spmv/stats.hpp"
#include "solvers/spmv/vectors.hpp"
#include "tests/solvers/spmv/spmv_test_util.hpp"
#include "tests/support/temp_dir.hpp"

namespace tessera::spmv::test {
namespace {

using tessera::test::context;

const Variant kHostVariants[] = {Variant::csr_scalar, Variant::csr_vector, Variant::coo_segmented, Variant::hybrid,
                                 Variant::merge_path, Variant::csr_binned};

MatrixSpec spec(MatrixSource source, std::int64_t n) {
  MatrixSpec s;
  s.source = source;
  s.n = n;
  s.half_bandwidth = 3;
  s.seed = 5;
  s.min_row_length = 2;
  s.exponent = 1.7;  // heavy tail: a few rows with hundreds of entries
  return s;
}

std::vector<MatrixSpec> generated_specs() {
  return {spec(MatrixSource::poisson7, 7), spec(MatrixSource::poisson27, 5), spec(MatrixSource::banded, 101),
          spec(MatrixSource::powerlaw, 700)};
}

// This rank's rows of `m` equal rows [begin, end) of `want` (a serial assembly of all rows).
template <class T>
void expect_rows(const DistMatrix<T>& m, const RowBlock<double>& want, const std::string& what) {
  const RowBlock<T> got = global_rows(m);
  ASSERT_EQ(got.rows(), m.my_rows.count) << what;
  for (std::int64_t r = 0; r < got.rows(); ++r) {
    const std::int64_t g = m.my_rows.begin + r;
    ASSERT_EQ(got.row_ptr[r + 1] - got.row_ptr[r], want.row_ptr[g + 1] - want.row_ptr[g]) << what << " row " << g;
    for (std::int64_t k = 0; k < got.row_ptr[r + 1] - got.row_ptr[r]; ++k) {
      ASSERT_EQ(got.col[got.row_ptr[r] + k], want.col[want.row_ptr[g] + k]) << what << " row " << g;
      ASSERT_EQ(static_cast<double>(got.val[got.row_ptr[r] + k]), static_cast<double>(static_cast<T>(want.val[want.row_ptr[g] + k])))
          << what << " row " << g;
    }
  }
}

// The matrix of a test's triplets, spread over the ranks (rank r contributes every P-th one).
LoadedMatrix distribute_test_matrix(const TestMatrix& m) {
  auto& ctx = context();
  Triplets mine;
  for (std::size_t k = 0; k < m.t.size(); ++k)
    if (static_cast<int>(k % ctx.size()) == ctx.rank()) mine.push(m.t.row[k], m.t.col[k], m.t.val[k]);
  RowBlock<double> uniform = distribute(ctx, mine, uniform_partition(m.rows, ctx.size()));
  std::vector<std::int64_t> lengths;
  for (std::int64_t r = 0; r < uniform.rows(); ++r) lengths.push_back(uniform.row_ptr[r + 1] - uniform.row_ptr[r]);
  LoadedMatrix out;
  out.part = balanced_partition(ctx, m.rows, lengths);
  out.rows = redistribute(ctx, uniform, out.part);
  out.cols = m.cols;
  out.description = m.name;
  return out;
}

// y = A x on all ranks by every variant equals the serial product of the whole matrix.
template <class T>
void expect_product(const LoadedMatrix& loaded, const RowBlock<double>& whole, const std::string& what) {
  auto& ctx = context();
  const DistMatrix<T> a = make_distributed<T>(ctx, loaded.rows, loaded.part, loaded.cols, what);
  VectorSpec xs;
  xs.source = VectorSource::random_integers;
  xs.low = -3;
  xs.high = 3;
  xs.seed = 21;
  const std::vector<T> x = make_vector<T>(ctx, xs, a.my_cols, a.cols, "x");
  std::vector<double> x_all(static_cast<std::size_t>(a.cols));
  for (std::int64_t j = 0; j < a.cols; ++j) x_all[j] = generated_entry(xs, j);
  const std::vector<double> want = serial_product(whole, x_all);
  const auto transport = comm::make_transport(ctx, Backend::cpu, "auto");
  for (Variant v : kHostVariants) {
    const auto engine = make_engine<T>(Backend::cpu, {v, HybridRule::third, 1});
    DistributedSpmv<T> spmv(ctx, *transport.transport, *engine, a);
    std::vector<T> y(static_cast<std::size_t>(a.my_rows.count), std::numeric_limits<T>::quiet_NaN());
    for (int repeat = 0; repeat < 2; ++repeat) {  // the exchange's buffers are reused
      spmv.multiply(x.data(), y.data());
      const std::vector<double> got = gather_all<T>(ctx, y, a.my_rows.begin, a.rows);
      for (std::int64_t i = 0; i < a.rows; ++i)
        ASSERT_EQ(got[i], want[i]) << what << ", variant " << to_string(v) << ", row " << i << " on "
                                   << ctx.size() << " ranks";
    }
    // The ghost block holds exactly the rows with ghost entries (compressed), not every row.
    std::int64_t rows_with_ghosts = 0;
    for (std::int64_t r = 0; r < a.ghost.rows; ++r) rows_with_ghosts += a.ghost.row_ptr[r + 1] > a.ghost.row_ptr[r];
    ASSERT_EQ(spmv.ghost_rows(), rows_with_ghosts) << what;
    ASSERT_EQ(spmv.ghost_info().rows, rows_with_ghosts) << what;
    ASSERT_EQ(spmv.ghost_info().nnz, a.ghost.nnz()) << what;
    // The ghosts are the owners' entries of x.
    const std::vector<T> ghosts = spmv.ghost_values();
    for (std::size_t k = 0; k < ghosts.size(); ++k) ASSERT_EQ(static_cast<double>(ghosts[k]), x_all[a.ghost_cols[k]]);
  }
}

template <class F>
void expect_input_error(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an input error containing '" << part << "'";
  } catch (const comm::CollectiveError& e) {
    EXPECT_EQ(e.code(), ExitCode::input_error) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(SpmvDistributed, GeneratedMatricesAreTheSameForAnyRankCount) {
  for (const MatrixSpec& s : generated_specs()) {
    const LoadedMatrix m = load_matrix(context(), s);
    const RowBlock<double> whole = generate_rows(s, {0, generated_rows(s)});
    expect_rows(make_distributed<double>(context(), m.rows, m.part, m.cols, s.describe()), whole, s.describe());
  }
  // Stencil rows as documented: 7 and 27 entries inside, symmetric values.
  const MatrixSpec p = spec(MatrixSource::poisson7, 4);
  const RowBlock<double> all = generate_rows(p, {0, 64});
  const std::int64_t inner = 1 + 4 + 16;  // (1, 1, 1)
  EXPECT_EQ(all.row_ptr[inner + 1] - all.row_ptr[inner], 7);
  EXPECT_EQ(all.row_ptr[1] - all.row_ptr[0], 4);
  for (std::int64_t r = 0; r < 64; ++r)
    for (std::int64_t q = all.row_ptr[r]; q < all.row_ptr[r + 1]; ++q) {
      EXPECT_EQ(all.val[q], all.col[q] == r ? 6.0 : -1.0);
      const std::int64_t c = all.col[q];
      const auto b = all.col.begin() + all.row_ptr[c], e = all.col.begin() + all.row_ptr[c + 1];
      EXPECT_TRUE(std::binary_search(b, e, r)) << "not symmetric at " << r << ", " << c;
    }
}

TEST(SpmvDistributed, RowsAreBalancedByNonzeros) {
  auto& ctx = context();
  const MatrixSpec s = spec(MatrixSource::powerlaw, 5000);
  const LoadedMatrix m = load_matrix(ctx, s);
  const RowBlock<double> whole = generate_rows(s, {0, s.n});
  std::int64_t total = 0, heaviest = 0;
  for (std::int64_t r = 0; r < whole.rows(); ++r) {
    total += whole.row_ptr[r + 1] - whole.row_ptr[r] + 1;
    heaviest = std::max(heaviest, generated_row_length(s, r) + 1);
  }
  // Weights by the generated lengths (before repeats): each rank within one row of its share.
  std::int64_t weight = 0;
  for (std::int64_t r = m.part.starts[ctx.rank()]; r < m.part.starts[ctx.rank() + 1]; ++r)
    weight += generated_row_length(s, r) + 1;
  std::int64_t generated_total = 0;
  for (std::int64_t r = 0; r < s.n; ++r) generated_total += generated_row_length(s, r) + 1;
  EXPECT_LE(weight, generated_total / ctx.size() + heaviest + 1);
  EXPECT_EQ(m.part.starts.front(), 0);
  EXPECT_EQ(m.part.starts.back(), s.n);
  EXPECT_TRUE(std::is_sorted(m.part.starts.begin(), m.part.starts.end()));
  EXPECT_GT(total, 0);
  // Partition::owner agrees with the ranges, empty ranges included.
  Partition p;
  p.starts = {0, 5, 5, 10, 10};
  EXPECT_EQ(p.owner(0), 0);
  EXPECT_EQ(p.owner(4), 0);
  EXPECT_EQ(p.owner(5), 2);
  EXPECT_EQ(p.owner(9), 2);
}

TEST(SpmvDistributed, ProductEqualsTheSerialProductBitwise) {
  for (const MatrixSpec& s : generated_specs()) {
    const LoadedMatrix m = load_matrix(context(), s);
    const RowBlock<double> whole = generate_rows(s, {0, generated_rows(s)});
    expect_product<double>(m, whole, s.describe());
    expect_product<float>(m, whole, s.describe() + " (float32)");
  }
  for (const TestMatrix& t : adversarial_matrices(31)) {
    const LoadedMatrix m = distribute_test_matrix(t);
    const RowBlock<double> whole = assemble_rows(0, t.rows, t.t);
    expect_rows(make_distributed<double>(context(), m.rows, m.part, m.cols, t.name), whole, t.name);
    expect_product<double>(m, whole, t.name);
    expect_product<float>(m, whole, t.name + " (float32)");
  }
}

TEST(SpmvDistributed, TheGlobalHybridWidthIsTheRuleOnAllRows) {
  auto& ctx = context();
  auto g = tessera::test::rng(77);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(g() % 40));  // the same on every rank
    for (auto& l : all) l = g() % 5 == 0 ? static_cast<std::int64_t>(g() % 300) : static_cast<std::int64_t>(g() % 7);
    const Range mine = block_range(static_cast<std::int64_t>(all.size()), ctx.size(), ctx.rank());
    const std::span<const std::int64_t> part(all.data() + mine.begin, static_cast<std::size_t>(mine.count));
    for (HybridRule rule : {HybridRule::third, HybridRule::percentile80})
      ASSERT_EQ(global_hybrid_width(ctx, part, rule), hybrid_width(all, rule))
          << "trial " << trial << ", " << all.size() << " rows, rule " << to_string(rule);
  }
}

class SpmvFiles : public ::testing::Test {
 protected:
  // Rank 0 writes `text` to dir/name; every rank gets the path.
  std::filesystem::path text_file(const std::string& name, const std::string& text) {
    const auto path = scratch.path() / name;
    if (context().is_root()) std::ofstream(path, std::ios::binary) << text;
    comm::barrier(context());
    return path;
  }
  MatrixSpec file_spec(MatrixSource source, const std::filesystem::path& path) {
    MatrixSpec s;
    s.source = source;
    s.file = path.string();
    s.where_file = "deck.toml:9";
    return s;
  }
  tessera::test::SharedTempDir scratch{"tessera_spmv"};
};

TEST_F(SpmvFiles, MatrixMarketIsReadTheSameOnAnyRankCount) {
  // Symmetric, comments and blank lines anywhere, CRLF lines, and the entry (3, 1) three times
  // far apart: summed in file order, (1e16 + 1) - 1e16 = 0 on any number of ranks.
  std::string text = "%%MatrixMarket matrix coordinate real symmetric\r\n% a comment\n\n6 6 12\n";
  text += "3 1 1e16\n";
  for (int i = 1; i <= 6; ++i) text += fmt::format("{} {} {}\n", i, i, 2.5 * i);
  text += "% in between\n5 2 -1.25\n3 1 1\n\n6 4 7\n4 3 0.5\n";
  text += "3 1 -1e16\n";
  const auto path = text_file("sym.mtx", text);
  Triplets t;
  auto both = [&](std::int64_t i, std::int64_t j, double v) {
    t.push(i, j, v);
    if (i != j) t.push(j, i, v);
  };
  both(2, 0, 1e16);
  for (int i = 1; i <= 6; ++i) both(i - 1, i - 1, 2.5 * i);
  both(4, 1, -1.25);
  both(2, 0, 1);
  both(5, 3, 7);
  both(3, 2, 0.5);
  both(2, 0, -1e16);
  const RowBlock<double> want = assemble_rows(0, 6, t);
  ASSERT_EQ(want.val[want.row_ptr[2]], 0.0);  // the repeats cancel in file order
  const LoadedMatrix m = load_matrix(context(), file_spec(MatrixSource::matrix_market, path));
  EXPECT_EQ(m.cols, 6);
  EXPECT_NE(m.description.find("symmetric"), std::string::npos);
  expect_rows(make_distributed<double>(context(), m.rows, m.part, m.cols, "sym"), want, "symmetric file");

  // Skew-symmetric integer and pattern general, rectangular.
  const auto skew = text_file("skew.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n3 2 -5\n");
  Triplets s;
  s.push(1, 0, 4);
  s.push(0, 1, -4);
  s.push(2, 1, -5);
  s.push(1, 2, 5);
  const LoadedMatrix ms = load_matrix(context(), file_spec(MatrixSource::matrix_market, skew));
  expect_rows(make_distributed<double>(context(), ms.rows, ms.part, ms.cols, "skew"), assemble_rows(0, 3, s), "skew");
  const auto pattern = text_file("pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 5 3\n1 5\n2 1\n1 5\n");
  Triplets p;
  p.push(0, 4, 1);
  p.push(1, 0, 1);
  p.push(0, 4, 1);
  const LoadedMatrix mp = load_matrix(context(), file_spec(MatrixSource::matrix_market, pattern));
  EXPECT_EQ(mp.cols, 5);
  expect_rows(make_distributed<double>(context(), mp.rows, mp.part, mp.cols, "pattern"), assemble_rows(0, 2, p),
              "pattern");
}

TEST_F(SpmvFiles, Hdf5CsrRoundTripsAndSumsUnsortedRepeats) {
  auto& ctx = context();
  const MatrixSpec s = spec(MatrixSource::powerlaw, 900);
  const LoadedMatrix m = load_matrix(ctx, s);
  const DistMatrix<double> a = make_distributed<double>(ctx, m.rows, m.part, m.cols, "powerlaw");
  const auto path = scratch.path() / "csr.h5";
  {
    io::File f = io::File::create(ctx, path);
    const io::Group g = f.root().create_group("A");
    write_csr(ctx, g, a);
  }
  MatrixSpec h = file_spec(MatrixSource::hdf5, path);
  h.group = "/A";
  const LoadedMatrix back = load_matrix(ctx, h);
  EXPECT_EQ(back.part.size(), m.part.size());  // (the split may differ: a generated matrix is balanced by its rows before repeats are summed)
  expect_rows(make_distributed<double>(ctx, back.rows, back.part, back.cols, "back"), generate_rows(s, {0, s.n}),
              "HDF5 round trip");

  // Written by hand: int32 indices, float32 values, unsorted rows with repeats, 3 x 4.
  const std::vector<std::int32_t> ptr{0, 3, 3, 6};
  const std::vector<std::int32_t> col{3, 0, 3, 2, 2, 1};
  const std::vector<float> val{1, 2, 3, 4, 5, 6};
  const auto hand = scratch.path() / "hand.h5";
  {
    io::File f = io::File::create(ctx, hand);
    const io::Group r = f.root();
    const bool root = ctx.is_root();
    io::write_1d<std::int32_t>(r, "row_ptr", root ? std::span(ptr) : std::span<const std::int32_t>(), 0, 4);
    io::write_1d<std::int32_t>(r, "col", root ? std::span(col) : std::span<const std::int32_t>(), 0, 6);
    io::write_1d<float>(r, "val", root ? std::span(val) : std::span<const float>(), 0, 6);
    io::write_attribute(r, "shape", std::vector<std::int64_t>{3, 4});
  }
  const LoadedMatrix mh = load_matrix(ctx, file_spec(MatrixSource::hdf5, hand));
  EXPECT_EQ(mh.cols, 4);
  Triplets t;
  for (int r = 0; r < 3; ++r)
    for (int k = ptr[r]; k < ptr[r + 1]; ++k) t.push(r, col[k], val[k]);
  const RowBlock<double> want = assemble_rows(0, 3, t);
  EXPECT_EQ(want.val, (std::vector<double>{2, 4, 6, 9}));
  expect_rows(make_distributed<double>(ctx, mh.rows, mh.part, mh.cols, "hand"), want, "hand-written CSR");
}

TEST_F(SpmvFiles, BadFilesAreRefusedNamingTheFileAndTheLine) {
  auto& ctx = context();
  const std::string head = "%%MatrixMarket matrix coordinate real general\n% comment\n4 4 5\n";
  struct Case {
    std::string name, text, message;
  };
  const std::vector<Case> cases = {
      {"malformed.mtx", head + "1 1 1\n2 2 2\n3 x 3\n4 4 4\n1 4 1\n", "malformed.mtx:6: malformed entry '3 x 3'"},
      {"value.mtx", head + "1 1 1\n2 2 two\n3 3 3\n4 4 4\n1 4 1\n", "value.mtx:5: malformed value 'two'"},
      {"fields.mtx", head + "1 1 1\n2 2\n3 3 3\n4 4 4\n1 4 1\n", "fields.mtx:5: expected 3 fields"},
      {"fewer.mtx", head + "1 1 1\n2 2 2\n", "the file ends after 2 entries, but line 3 announces 5"},
      {"more.mtx", head + "1 1 1\n2 2 2\n3 3 3\n4 4 4\n1 4 1\n2 1 1\n3 1 1\n", "more.mtx:9: more entries than the 5"},
      {"row.mtx", head + "1 1 1\n2 2 2\n5 3 3\n4 4 4\n1 4 1\n", "row.mtx:6: row index 5 is outside [1, 4]"},
      {"col.mtx", head + "1 1 1\n2 2 2\n3 0 3\n4 4 4\n1 4 1\n", "col.mtx:6: column index 0 is outside [1, 4]"},
      {"banner.mtx", "%%MatrixMarket matrix array real general\n4 4\n", "banner.mtx:1: Matrix Market format 'array'"},
      {"size.mtx", "%%MatrixMarket matrix coordinate real general\n4 4\n", "size.mtx:2: malformed size line"},
      {"nonfinite.mtx", head + "1 1 1\n2 2 inf\n3 3 3\n4 4 4\n1 4 1\n", "nonfinite.mtx:5: malformed value 'inf'"},
      {"rect_symmetric.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n",
       "rect_symmetric.mtx:2: a symmetric matrix must be square"},
  };
  for (const Case& c : cases) {
    const auto path = text_file(c.name, c.text);
    expect_input_error([&] { load_matrix(ctx, file_spec(MatrixSource::matrix_market, path)); }, c.message);
  }
  expect_input_error(
      [&] { load_matrix(ctx, file_spec(MatrixSource::matrix_market, scratch.path() / "none.mtx")); },
      "cannot open the matrix file");

  // HDF5 CSR: a decreasing row_ptr, a column out of range, a missing dataset.
  auto write = [&](const std::string& name, std::vector<std::int64_t> ptr, std::vector<std::int64_t> col, bool with_val) {
    const auto path = scratch.path() / name;
    io::File f = io::File::create(ctx, path);
    const io::Group r = f.root();
    const bool root = ctx.is_root();
    const auto n = static_cast<std::int64_t>(col.size());
    io::write_1d<std::int64_t>(r, "row_ptr", root ? std::span(ptr) : std::span<const std::int64_t>(), 0,
                               static_cast<std::int64_t>(ptr.size()));
    io::write_1d<std::int64_t>(r, "col", root ? std::span(col) : std::span<const std::int64_t>(), 0, n);
    std::vector<double> val(col.size(), 1.0);
    if (with_val) io::write_1d<double>(r, "val", root ? std::span(val) : std::span<const double>(), 0, n);
    return path;
  };
  const auto decreasing = write("decreasing.h5", {0, 2, 5, 3, 6, 6, 6}, {0, 1, 2, 3, 4, 5}, true);
  expect_input_error([&] { load_matrix(ctx, file_spec(MatrixSource::hdf5, decreasing)); },
                     "decreasing.h5: dataset /row_ptr decreases at row 2: row_ptr[2] = 5, row_ptr[3] = 3");
  const auto wrong_end = write("wrong_end.h5", {0, 2, 4}, {0, 1, 0, 1, 1}, true);
  expect_input_error([&] { load_matrix(ctx, file_spec(MatrixSource::hdf5, wrong_end)); },
                     "wrong_end.h5: dataset /row_ptr ends at 4, but /col and /val hold 5 entries");
  const auto column = write("column.h5", {0, 2, 4}, {0, 1, 0, 7}, true);
  expect_input_error([&] { load_matrix(ctx, file_spec(MatrixSource::hdf5, column)); },
                     "column.h5: dataset /col: entry 3 (row 1) is column 7, outside [0, 2)");
  const auto missing = write("missing.h5", {0, 1}, {0}, false);
  expect_input_error([&] { load_matrix(ctx, file_spec(MatrixSource::hdf5, missing)); }, "missing.h5: no dataset /val");
}

}  // namespace
}  // namespace tessera::spmv::test
