#include "solvers/spmv/params.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace tessera::spmv {
namespace {

VectorSource parse_vector_source(const std::string& s) {
  if (s == "ones") return VectorSource::ones;
  if (s == "random") return VectorSource::random;
  if (s == "random-integers") return VectorSource::random_integers;
  return VectorSource::file;
}

void check_finite(const deck::Config& deck, std::string_view key) {
  if (!std::isfinite(deck.get_double(key)))
    throw InputError(fmt::format("{}: {} must be finite", deck.where(key), key));
}

}  // namespace

std::string_view to_string(Mode m) { return m == Mode::multiply ? "multiply" : "cg"; }

std::string_view to_string(Rhs r) {
  switch (r) {
    case Rhs::ones: return "ones";
    case Rhs::random: return "random";
    case Rhs::file: return "file";
    default: return "manufactured";
  }
}

std::string Params::describe_rhs() const {
  if (rhs == Rhs::manufactured) return "A x* for x* " + solution.describe();
  return b.describe();
}

Params params_from_deck(const deck::Config& deck, Backend backend) {
  Params p;
  p.where_mode = deck.where("spmv.mode");
  p.mode = deck.get_string("spmv.mode") == "cg" ? Mode::cg : Mode::multiply;
  p.precision = deck.get_string("spmv.precision") == "float32" ? Precision::float32 : Precision::float64;
  const Variant requested = parse_variant(deck.get_string("spmv.variant"));
  if (backend != Backend::cuda && !runs_on_host(requested))
    throw InputError(fmt::format("{}: spmv.variant = \"{}\" runs on a GPU (NVIDIA's cuSPARSE), but this run's backend "
                                 "is cpu (choose csr-scalar, csr-vector, coo-segmented, hybrid, merge-path, csr-binned or auto)",
                                 deck.where("spmv.variant"), to_string(requested)));
  p.variant = requested;  // auto is chosen from the matrix (choose_variant)
  p.hybrid_rule = parse_hybrid_rule(deck.get_string("spmv.hybrid_rule"));
  p.verify = deck.get_bool("spmv.verify");
  p.write_matrix = deck.get_bool("spmv.write_matrix");

  MatrixSpec& m = p.matrix;
  m.source = parse_matrix_source(deck.get_string("spmv.matrix.source"));
  m.half_bandwidth = deck.get_int("spmv.matrix.half_bandwidth");
  m.seed = static_cast<std::uint64_t>(deck.get_int("spmv.matrix.seed"));
  m.min_row_length = deck.get_int("spmv.matrix.min_row_length");
  m.max_row_length = deck.get_int("spmv.matrix.max_row_length");
  m.exponent = deck.get_double("spmv.matrix.exponent");
  m.file = deck.get_string("spmv.matrix.file");
  m.group = deck.get_string("spmv.matrix.group");
  m.where_file = deck.where("spmv.matrix.file");
  if (m.generated()) {
    if (!deck.has("spmv.matrix.n"))
      throw InputError(fmt::format("{}: a generated {} matrix needs spmv.matrix.n ({})", deck.where("spmv.matrix.source"),
                                   to_string(m.source),
                                   m.source == MatrixSource::poisson7 || m.source == MatrixSource::poisson27
                                       ? "grid points per axis"
                                       : "the number of rows"));
    m.n = deck.get_int("spmv.matrix.n");
    if ((m.source == MatrixSource::poisson7 || m.source == MatrixSource::poisson27) && m.n > 2000000)
      throw InputError(fmt::format("{}: spmv.matrix.n = {} gives {}^3 rows, past what 64-bit indices hold",
                                   deck.where("spmv.matrix.n"), m.n, m.n));
    if (m.source == MatrixSource::powerlaw && m.max_row_length > 0 && m.max_row_length < m.min_row_length)
      throw InputError(fmt::format("{}: spmv.matrix.max_row_length = {} is below min_row_length = {}",
                                   deck.where("spmv.matrix.max_row_length"), m.max_row_length, m.min_row_length));
  } else if (m.file.empty()) {
    throw InputError(fmt::format("{}: spmv.matrix.source = \"{}\" needs spmv.matrix.file",
                                 deck.where("spmv.matrix.source"), to_string(m.source)));
  }

  auto vector_spec = [&](const std::string& table, const std::string& source) {
    VectorSpec v;
    v.source = parse_vector_source(source);
    v.seed = static_cast<std::uint64_t>(deck.get_int(table + ".seed"));
    v.file = deck.get_string(table + ".file");
    v.dataset = deck.get_string(table + ".dataset");
    v.where_file = deck.where(table + ".file");
    if (v.source == VectorSource::file && v.file.empty())
      throw InputError(fmt::format("{}: a vector read from a file needs {}.file (an HDF5 file)",
                                   deck.where(table + ".source"), table));
    return v;
  };
  p.x = vector_spec("spmv.x", deck.get_string("spmv.x.source"));
  check_finite(deck, "spmv.x.low");
  check_finite(deck, "spmv.x.high");
  p.x.low = deck.get_double("spmv.x.low");
  p.x.high = deck.get_double("spmv.x.high");
  if (p.x.low > p.x.high)
    throw InputError(fmt::format("{}: spmv.x.low = {} is above spmv.x.high = {}", deck.where("spmv.x.low"), p.x.low,
                                 p.x.high));
  if (p.x.source == VectorSource::random_integers &&
      (p.x.low != std::floor(p.x.low) || p.x.high != std::floor(p.x.high) || std::fabs(p.x.low) > 1e15 ||
       std::fabs(p.x.high) > 1e15))
    throw InputError(fmt::format("{}: random-integers needs whole numbers for spmv.x.low and spmv.x.high (they are {} "
                                 "and {})",
                                 deck.where("spmv.x.source"), p.x.low, p.x.high));

  p.cg.tolerance = deck.get_double("spmv.cg.tolerance");
  p.cg.jacobi = deck.get_string("spmv.cg.preconditioner") == "jacobi";
  p.cg.stagnation = deck.get_int("spmv.cg.stagnation");
  const std::string& rhs = deck.get_string("spmv.cg.rhs");
  p.rhs = rhs == "ones" ? Rhs::ones : rhs == "random" ? Rhs::random : rhs == "file" ? Rhs::file : Rhs::manufactured;
  p.b = vector_spec("spmv.cg", rhs == "manufactured" ? "random" : rhs);
  p.b.low = -1.0;
  p.b.high = 1.0;
  p.solution = p.b;
  return p;
}

}  // namespace tessera::spmv
