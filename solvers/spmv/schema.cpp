#include "solvers/spmv/schema.hpp"

#include "solvers/spmv/types.hpp"

namespace tessera::spmv {

deck::Schema spmv_schema() {
  deck::Schema s;
  s.table("spmv", "sparse matrix-vector products y = A x over the ranks, and conjugate gradients on top")
      .choice("mode",
              "multiply: every step computes y = A x (the same x, [run] steps times); cg: every step is one "
              "conjugate-gradient iteration on A x = b, until spmv.cg.tolerance or [run] steps",
              {"multiply", "cg"})
      .default_value("multiply")
      .choice("precision", "type of the matrix values and vectors (dot products are summed in float64)",
              {"float64", "float32"})
      .default_value("float64")
      .choice("variant",
              "kernel: csr-scalar (a row per thread, the seed's per-row), csr-vector (a warp per row), coo-segmented "
              "(a thread per nonzero, segmented row sums: the seed's per-element), hybrid (ELL + COO tail: the seed's), "
              "merge-path (load balanced), csr-binned (sub-warps for short rows, long rows split, L2-sized column bands), "
              "cusparse (GPU only), auto (csr-scalar on the cpu engine; on the cuda engine hybrid for nearly-ELL matrices, "
              "csr-binned otherwise)",
              variant_names())
      .default_value("auto")
      .choice("hybrid_rule",
              "where the hybrid variant cuts ELL from COO: third (the seed's: the widest ELL width that at least 1/3 "
              "of the rows reach) or percentile80 (the 80th percentile of the row lengths)",
              {"third", "percentile80"})
      .default_value("third")
      .boolean("verify",
               "multiply: compare y with a float64 CSR product of the same rows (within rounding) at diagnostics and "
               "at the end")
      .default_value(true)
      .boolean("write_matrix",
               "write the matrix as HDF5 CSR to <output_dir>/matrix.h5 (row_ptr, col, val; readable with "
               "spmv.matrix.source = \"hdf5\")")
      .default_value(false);
  s.table("spmv.matrix", "the matrix A: generated (the same for any rank count) or read from a file")
      .choice("source",
              "poisson7 / poisson27 (3D Poisson, n^3 rows, SPD), banded (n rows, SPD), powerlaw (n x n, Pareto row "
              "lengths, random columns), matrix_market (a .mtx coordinate file), hdf5 (CSR datasets row_ptr, col, val)",
              {"poisson7", "poisson27", "banded", "powerlaw", "matrix_market", "hdf5"})
      .default_value("poisson7")
      .integer("n", "generated: grid points per axis (poisson7, poisson27) or rows (banded, powerlaw)")
      .min(1)
      .optional()
      .integer("half_bandwidth", "banded: the columns within this distance of the diagonal")
      .min(0)
      .default_value(2)
      .integer("seed", "powerlaw: seed of the counter-based generator")
      .min(0)
      .default_value(1)
      .integer("min_row_length", "powerlaw: the shortest rows (the Pareto law's scale)")
      .min(1)
      .default_value(4)
      .integer("max_row_length", "powerlaw: the longest rows (0: the number of columns)")
      .min(0)
      .default_value(0)
      .floating("exponent", "powerlaw: the Pareto exponent of the row lengths (smaller: heavier tail)")
      .greater_than(1)
      .default_value(2.2)
      .string("file", "matrix_market, hdf5: the file").file()
      .default_value("")
      .string("group", "hdf5: the group holding row_ptr, col and val")
      .default_value("/");
  s.table("spmv.x", "multiply: the vector x (the matrix's columns)")
      .choice("source",
              "ones; random (uniform in [low, high)); random-integers (whole numbers in [low, high]: sums stay exact); "
              "file (a 1-D float64 or float32 HDF5 dataset)",
              {"ones", "random", "random-integers", "file"})
      .default_value("random")
      .integer("seed", "seed of the counter-based generator (the same x for any rank count)")
      .min(0)
      .default_value(7)
      .floating("low", "smallest random value")
      .default_value(-1.0)
      .floating("high", "largest random value")
      .default_value(1.0)
      .string("file", "source = \"file\": the HDF5 file").file()
      .default_value("")
      .string("dataset", "source = \"file\": the dataset")
      .default_value("/x");
  s.table("spmv.cg", "cg: the system A x = b and when to stop")
      .floating("tolerance", "stop when ||b - A x|| / ||b|| (the recurrence's residual) falls to this")
      .greater_than(0)
      .default_value(1e-8)
      .choice("preconditioner", "none, or jacobi (the inverse diagonal)", {"none", "jacobi"})
      .default_value("none")
      .choice("rhs",
              "b: ones; random (uniform in [-1, 1), seed); file (a 1-D float64 or float32 HDF5 dataset); manufactured "
              "(b = A x* for a random x* in [-1, 1), seed: the error to x* is reported)",
              {"ones", "random", "file", "manufactured"})
      .default_value("ones")
      .integer("seed", "seed of b (random) or x* (manufactured)")
      .min(0)
      .default_value(11)
      .string("file", "rhs = \"file\": the HDF5 file").file()
      .default_value("")
      .string("dataset", "rhs = \"file\": the dataset")
      .default_value("/b")
      .integer("stagnation",
               "stop with an error when the residual has not reached a new minimum in this many iterations (0: never)")
      .min(0)
      .default_value(500);
  return s;
}

}  // namespace tessera::spmv
