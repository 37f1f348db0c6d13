// The spmv solver end to end through the run loop on 1..4 ranks: y = A x in spmv.h5 equals the
// serial product, CG converges on Poisson to the tolerance and to a manufactured solution in
// as many iterations as a serial CG, a restart continues bit for bit, and non-SPD, non-square
// or malformed inputs are refused with a message naming the key, file or line, leaving the
// outputs of an earlier run untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/run_command.hpp"
#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "io/h5.hpp"
#include "solvers/spmv/formats.hpp"
#include "solvers/spmv/generate.hpp"
#include "solvers/spmv/solver_info.hpp"
#include "solvers/spmv/vectors.hpp"
#include "tests/solvers/spmv/spmv_test_util.hpp"
#include "tests/support/mpi_test.hpp"
#include "tests/support/temp_dir.hpp"

namespace tessera::spmv::test {
namespace {

using tessera::test::context;

// Conjugate gradients as cg.hpp states it, serially, in double; returns the iterations.
std::int64_t serial_cg(const RowBlock<double>& a, const std::vector<double>& b, double tol, bool jacobi,
                       std::vector<double>& x) {
  const auto n = static_cast<std::size_t>(a.rows());
  std::vector<double> d(n, 1.0), r = b, p(n), q(n);
  x.assign(n, 0.0);
  if (jacobi)
    for (std::size_t i = 0; i < n; ++i)
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        if (a.col[k] == static_cast<std::int64_t>(i)) d[i] = 1.0 / a.val[k];
  double rho = 0, rr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = d[i] * r[i];
    rho += r[i] * p[i];
    rr += r[i] * r[i];
  }
  const double bnorm = std::sqrt(rr);
  for (std::int64_t k = 1; k < 10000; ++k) {
    q = serial_product(a, p);
    double pq = 0;
    for (std::size_t i = 0; i < n; ++i) pq += p[i] * q[i];
    const double alpha = rho / pq;
    double rz = 0;
    rr = 0;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rz += r[i] * d[i] * r[i];
      rr += r[i] * r[i];
    }
    const double beta = rz / rho;
    rho = rz;
    for (std::size_t i = 0; i < n; ++i) p[i] = d[i] * r[i] + beta * p[i];
    if (std::sqrt(rr) / bnorm <= tol) return k;
  }
  return -1;
}

struct SpmvSolverTest : ::testing::Test {
  void SetUp() override { registry.add_solver(solver_info()); }

  deck::Deck deck(const std::string& tables, const std::vector<std::string>& overrides = {},
                  const std::string& name = "out") {
    const auto path = (root / "deck.toml").string();
    if (context().rank() == 0) {
      std::ofstream out(path);
      out << "[run]\nsolver = \"spmv\"\nsteps = 2\nbackend = \"cpu\"\noutput_dir = \"" << (root / name).string()
          << "\"\nstatus_interval = 100\n\n" << tables;
    }
    comm::barrier(context());
    return app::load_run_deck(context(), registry, path, overrides);
  }

  app::RunSummary run(const deck::Deck& d, const std::string& restart = "") {
    app::RunOptions opt;
    opt.restart = restart;
    opt.overwrite = restart.empty();
    return app::run_deck(context(), registry, d, opt);
  }

  template <class T>
  std::vector<T> read_all(const std::filesystem::path& file, const std::string& name) {
    const io::File f = io::File::open(context(), file);
    return io::read_1d<T>(f.root(), name, 0, io::dataset_extent(f.root(), name).at(0));
  }

  std::filesystem::path text_file(const std::string& name, const std::string& text) {
    const auto path = root / name;
    if (context().is_root()) std::ofstream(path, std::ios::binary) << text;
    comm::barrier(context());
    return path;
  }

  std::string bytes_of(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
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

  tessera::test::SharedTempDir scratch{"tessera_spmv_solver"};
  const std::filesystem::path root = scratch.path();
  app::Registry registry;
};

TEST_F(SpmvSolverTest, MultiplyWritesTheSerialProductAndTheMatrix) {
  const auto s = run(deck("[spmv]\nvariant = \"merge-path\"\nwrite_matrix = true\n[spmv.matrix]\nsource = \"powerlaw\"\n"
                          "n = 600\nseed = 5\nexponent = 1.8\n[spmv.x]\nsource = \"random-integers\"\nlow = -3\nhigh = 3\n"
                          "[diagnostics]\nevery = 1\n"));
  EXPECT_EQ(s.last_step, 2);
  MatrixSpec m;
  m.source = MatrixSource::powerlaw;
  m.n = 600;
  m.seed = 5;
  m.exponent = 1.8;
  m.min_row_length = 4;
  const RowBlock<double> a = generate_rows(m, {0, 600});
  VectorSpec xs;
  xs.source = VectorSource::random_integers;
  xs.seed = 7;
  xs.low = -3;
  xs.high = 3;
  std::vector<double> x(600);
  for (int j = 0; j < 600; ++j) x[j] = generated_entry(xs, j);
  const auto file = root / "out" / "spmv.h5";
  EXPECT_EQ(read_all<double>(file, "x"), x);
  EXPECT_EQ(read_all<double>(file, "y"), serial_product(a, x));
  std::vector<std::int64_t> lengths;
  for (std::int64_t r = 0; r < 600; ++r) lengths.push_back(a.row_ptr[r + 1] - a.row_ptr[r]);
  const io::File f = io::File::open(context(), file);
  const io::Group r = f.root();
  EXPECT_EQ(io::read_attribute<std::int64_t>(r, "rows"), 600);
  EXPECT_EQ(io::read_attribute<std::int64_t>(r, "nonzeros"), a.nnz());
  EXPECT_EQ(io::read_attribute<std::int64_t>(r, "row_length_max"), *std::max_element(lengths.begin(), lengths.end()));
  EXPECT_EQ(io::read_attribute<std::int64_t>(r, "hybrid_ell_width"), hybrid_width(lengths, HybridRule::third));
  EXPECT_EQ(io::read_attribute<std::int64_t>(r, "hybrid_coo_entries"),
            hybrid_split(lengths, hybrid_width(lengths, HybridRule::third)).coo_entries);
  EXPECT_EQ(io::read_attribute<std::string>(r, "variant"), "merge-path");
  EXPECT_EQ(io::read_attribute<std::string>(r, "mode"), "multiply");
  EXPECT_EQ(io::read_attribute<int>(r, "ranks"), context().size());
  EXPECT_NE(io::read_attribute<std::string>(r, "deck").find("solver = \"spmv\""), std::string::npos);
  // The matrix file is the matrix, as CSR.
  const auto mfile = root / "out" / "matrix.h5";
  EXPECT_EQ(read_all<std::int64_t>(mfile, "row_ptr"), a.row_ptr);
  EXPECT_EQ(read_all<std::int64_t>(mfile, "col"), a.col);
  EXPECT_EQ(read_all<double>(mfile, "val"), a.val);
  // ... which the solver reads back: the same y, float32 this time.
  run(deck("[spmv]\nprecision = \"float32\"\nvariant = \"hybrid\"\nhybrid_rule = \"percentile80\"\n"
           "[spmv.matrix]\nsource = \"hdf5\"\nfile = \"" + mfile.string() +
               "\"\n[spmv.x]\nsource = \"random-integers\"\nlow = -3\nhigh = 3\n",
           {}, "again"));
  const auto y32 = read_all<float>(root / "again" / "spmv.h5", "y");
  const auto want = serial_product(a, x);
  ASSERT_EQ(y32.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(static_cast<double>(y32[i]), want[i]) << "row " << i;
}

TEST_F(SpmvSolverTest, CgConvergesOnPoissonLikeASerialCg) {
  for (const bool jacobi : {false, true}) {
    const std::string tables = fmt::format(
        "[spmv]\nmode = \"cg\"\n[spmv.matrix]\nsource = \"poisson7\"\nn = 10\n[spmv.cg]\nrhs = \"manufactured\"\n"
        "tolerance = 1e-10\npreconditioner = \"{}\"\n",
        jacobi ? "jacobi" : "none");
    const auto s = run(deck(tables, {"run.steps=500"}));
    MatrixSpec m;
    m.source = MatrixSource::poisson7;
    m.n = 10;
    const RowBlock<double> a = generate_rows(m, {0, 1000});
    VectorSpec xs;
    xs.source = VectorSource::random;
    xs.seed = 11;
    std::vector<double> exact(1000), x;
    for (int i = 0; i < 1000; ++i) exact[i] = generated_entry(xs, i);
    const std::int64_t iterations = serial_cg(a, serial_product(a, exact), 1e-10, jacobi, x);
    ASSERT_GT(iterations, 5);
    EXPECT_EQ(s.last_step, iterations) << "the run stops at convergence, after as many iterations as a serial CG";
    const auto file = root / "out" / "spmv.h5";
    const io::File f = io::File::open(context(), file);
    const io::Group r = f.root();
    EXPECT_EQ(io::read_attribute<std::int64_t>(r, "iterations"), iterations);
    EXPECT_EQ(io::read_attribute<std::int32_t>(r, "converged"), 1);
    EXPECT_LE(io::read_attribute<double>(r, "relative_residual"), 1e-10);
    EXPECT_LE(io::read_attribute<double>(r, "true_relative_residual"), 1e-9);
    EXPECT_LE(io::read_attribute<double>(r, "relative_error_to_exact"), 1e-8);
    const auto got = read_all<double>(file, "x");
    for (int i = 0; i < 1000; ++i) EXPECT_NEAR(got[i], exact[i], 1e-8);
    EXPECT_EQ(read_all<double>(file, "x_exact"), exact);
    // The residual history: the start and every iteration.
    const io::File h = io::File::open(context(), root / "out" / "spmv_history.h5");
    const auto rows = io::TimeSeries::open(h.root(), "cg").read();
    ASSERT_EQ(static_cast<std::int64_t>(rows.size()), 5 * (iterations + 1));
    EXPECT_EQ(rows[0], 0.0);
    EXPECT_EQ(rows[2], 1.0);  // x = 0: r = b
    EXPECT_EQ(rows[5 * iterations], static_cast<double>(iterations));
    EXPECT_LE(rows[5 * iterations + 2], 1e-10);
    EXPECT_GT(rows[5 * (iterations - 1) + 2], 1e-10);
  }
}

TEST_F(SpmvSolverTest, CgInFloat32ReachesItsPrecision) {
  const auto s = run(deck("[spmv]\nmode = \"cg\"\nprecision = \"float32\"\nvariant = \"coo-segmented\"\n[spmv.matrix]\n"
                          "source = \"banded\"\nn = 400\nhalf_bandwidth = 4\n[spmv.cg]\nrhs = \"manufactured\"\n"
                          "tolerance = 1e-5\n",
                          {"run.steps=300"}));
  EXPECT_LT(s.last_step, 300);
  const io::File f = io::File::open(context(), root / "out" / "spmv.h5");
  EXPECT_EQ(io::read_attribute<std::string>(f.root(), "precision"), "float32");
  EXPECT_EQ(io::dataset_element_type(f.root(), "x"), io::ElementType::float32);
  EXPECT_EQ(io::read_attribute<std::int32_t>(f.root(), "converged"), 1);
  EXPECT_LE(io::read_attribute<double>(f.root(), "true_relative_residual"), 1e-4);
  EXPECT_LE(io::read_attribute<double>(f.root(), "relative_error_to_exact"), 1e-4);
}

TEST_F(SpmvSolverTest, RestartContinuesBitForBit) {
  const std::string tables =
      "[spmv]\nmode = \"cg\"\n[spmv.matrix]\nsource = \"poisson27\"\nn = 7\n[spmv.cg]\nrhs = \"random\"\n"
      "tolerance = 1e-30\nstagnation = 0\npreconditioner = \"jacobi\"\n";
  run(deck(tables, {"run.steps=14"}, "full"));
  const auto x_full = read_all<double>(root / "full" / "spmv.h5", "x");
  const io::File hf = io::File::open(context(), root / "full" / "spmv_history.h5");
  const auto history_full = io::TimeSeries::open(hf.root(), "cg").read();

  const auto first = run(deck(tables + "[checkpoint]\nat_end = true\n", {"run.steps=6"}, "split"));
  ASSERT_FALSE(first.last_checkpoint.empty());
  const auto second = run(deck(tables, {"run.steps=14"}, "split"), first.last_checkpoint.string());
  EXPECT_EQ(second.first_step, 6);
  EXPECT_EQ(second.last_step, 14);
  EXPECT_EQ(read_all<double>(root / "split" / "spmv.h5", "x"), x_full);
  const io::File hs = io::File::open(context(), root / "split" / "spmv_history.h5");
  EXPECT_EQ(io::TimeSeries::open(hs.root(), "cg").read(), history_full);
  // Another matrix is refused.
  expect_input_error([&] { run(deck(tables, {"run.steps=14", "spmv.matrix.n=8"}, "other"), first.last_checkpoint.string()); },
                     "spmv.matrix.n = 7 in the checkpoint, 8 now");
}

TEST_F(SpmvSolverTest, NonSpdNonSquareAndBadDecksAreRefused) {
  // Symmetric but indefinite: p.Ap turns negative.
  const auto indefinite = text_file("indefinite.mtx",
                                    "%%MatrixMarket matrix coordinate real symmetric\n4 4 6\n1 1 2\n2 2 -3\n3 3 4\n"
                                    "4 4 -1\n2 1 0.5\n4 3 0.25\n");
  const std::string cg = "[spmv]\nmode = \"cg\"\n[spmv.matrix]\nsource = \"matrix_market\"\nfile = \"";
  expect_input_error([&] { run(deck(cg + indefinite.string() + "\"\n")); }, "is not symmetric positive definite");
  expect_input_error([&] { run(deck(cg + indefinite.string() + "\"\n[spmv.cg]\npreconditioner = \"jacobi\"\n")); },
                     "row 1 has diagonal entry -3; the Jacobi preconditioner");
  const auto rectangular = text_file("rect.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 1 1\n2 3 1\n");
  expect_input_error([&] { run(deck(cg + rectangular.string() + "\"\n")); }, "is 2 x 3; conjugate gradients");
  expect_input_error([&] { run(deck("[spmv]\nvariant = \"cusparse\"\n[spmv.matrix]\nn = 3\n")); }, "runs on a GPU");
  expect_input_error([&] { run(deck("[spmv.matrix]\nsource = \"banded\"\n")); }, "needs spmv.matrix.n (the number of rows)");
  expect_input_error([&] { run(deck("[spmv.matrix]\nsource = \"hdf5\"\n")); }, "needs spmv.matrix.file");
  expect_input_error([&] { run(deck("[spmv.matrix]\nn = 3\n[spmv.x]\nsource = \"random-integers\"\nlow = 0.5\n")); },
                     "whole numbers");
  expect_input_error([&] { run(deck("[spmv.matrix]\nn = 3\n[spmv.x]\nsource = \"file\"\nfile = \"" +
                                    (root / "none.h5").string() + "\"\n")); },
                     "none.h5");
}

TEST_F(SpmvSolverTest, VectorsComeFromHdf5Files) {
  auto& ctx = context();
  const std::int64_t n = 50;
  const auto file = root / "vectors.h5";
  const std::vector<double> xd = integer_vector(n, 41);
  const std::vector<float> x(xd.begin(), xd.end());
  std::vector<double> b(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) b[i] = std::sin(0.3 * static_cast<double>(i)) + 0.5;
  {
    io::File f = io::File::create(ctx, file);
    const io::Group r = f.root();
    const Range mine = block_range(n, ctx.size(), ctx.rank());
    io::write_1d<float>(r, "vec/x", std::span(x).subspan(mine.begin, mine.count), mine.begin, n);
    io::write_1d<double>(r, "b", std::span(b).subspan(mine.begin, mine.count), mine.begin, n);
    io::write_1d<double>(r, "short", ctx.is_root() ? std::span(b).subspan(0, 10) : std::span<const double>(), 0, 10);
  }
  const std::string banded = "[spmv.matrix]\nsource = \"banded\"\nn = 50\nhalf_bandwidth = 2\n";
  run(deck(banded + "[spmv.x]\nsource = \"file\"\nfile = \"" + file.string() + "\"\ndataset = \"/vec/x\"\n"));
  MatrixSpec m;
  m.source = MatrixSource::banded;
  m.n = n;
  m.half_bandwidth = 2;
  const RowBlock<double> a = generate_rows(m, {0, n});
  EXPECT_EQ(read_all<double>(root / "out" / "spmv.h5", "y"), serial_product(a, xd));
  const std::string cg = "[spmv]\nmode = \"cg\"\n" + banded + "[spmv.cg]\nrhs = \"file\"\nfile = \"" + file.string() + "\"\n";
  const auto s = run(deck(cg, {"run.steps=200"}));
  EXPECT_LT(s.last_step, 200);
  EXPECT_EQ(read_all<double>(root / "out" / "spmv.h5", "b"), b);
  expect_input_error([&] { run(deck(cg + "dataset = \"/short\"\n")); }, "has shape [10], but b needs 50 entries");
  expect_input_error([&] { run(deck(cg + "dataset = \"/nope\"\n")); }, "has no dataset /nope");
}

TEST_F(SpmvSolverTest, BadInputLeavesEarlierOutputsUntouched) {
  const std::string good = "[spmv.matrix]\nn = 5\n";
  run(deck(good, {}, "keep"));
  const auto result = root / "keep" / "spmv.h5";
  const std::string before = context().is_root() ? bytes_of(result) : std::string();
  const auto bad = text_file("bad.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 x\n3 3 1\n");
  expect_input_error([&] {
    run(deck("[spmv.matrix]\nsource = \"matrix_market\"\nfile = \"" + bad.string() + "\"\n", {}, "keep"));
  }, "bad.mtx:4: malformed value 'x'");
  const auto lies = text_file("lies.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 1\n3 3 1\n");
  expect_input_error([&] {
    run(deck("[spmv.matrix]\nsource = \"matrix_market\"\nfile = \"" + lies.string() + "\"\n", {}, "keep"));
  }, "lies.mtx: the file ends after 3 entries, but line 2 announces 4");
  if (context().is_root()) {
    EXPECT_EQ(bytes_of(result), before);
    EXPECT_FALSE(std::filesystem::exists(root / "keep" / "spmv.h5.tmp"));
  }
}

}  // namespace
}  // namespace tessera::spmv::test
