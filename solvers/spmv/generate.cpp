#include "solvers/spmv/generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "solvers/spmv/random.hpp"

namespace tessera::spmv {
namespace {

constexpr std::uint64_t kStreamLength = 1, kStreamColumn = 2, kStreamValue = 3;

std::int64_t powerlaw_max(const MatrixSpec& s) {
  return s.max_row_length > 0 ? std::min(s.max_row_length, s.n) : s.n;
}

std::int64_t powerlaw_length(const MatrixSpec& s, std::int64_t row) {
  const std::int64_t hi = powerlaw_max(s);
  if (hi <= 0) return 0;
  const double u = uniform_open0(random_bits(s.seed, kStreamLength, static_cast<std::uint64_t>(row)));
  const double len = static_cast<double>(s.min_row_length) * std::pow(u, -1.0 / (s.exponent - 1.0));
  if (!(len < static_cast<double>(hi))) return hi;
  return std::max<std::int64_t>(std::min(s.min_row_length, hi), static_cast<std::int64_t>(len));
}

// The per-row entry counts of a 3D stencil: neighbours inside the grid along each axis.
std::int64_t inside(std::int64_t i, std::int64_t n) { return 1 + (i > 0) + (i + 1 < n); }

}  // namespace

std::string_view to_string(MatrixSource s) {
  switch (s) {
    case MatrixSource::poisson7: return "poisson7";
    case MatrixSource::poisson27: return "poisson27";
    case MatrixSource::banded: return "banded";
    case MatrixSource::powerlaw: return "powerlaw";
    case MatrixSource::matrix_market: return "matrix_market";
    default: return "hdf5";
  }
}

MatrixSource parse_matrix_source(std::string_view text) {
  for (MatrixSource s : {MatrixSource::poisson7, MatrixSource::poisson27, MatrixSource::banded, MatrixSource::powerlaw,
                         MatrixSource::matrix_market, MatrixSource::hdf5})
    if (text == to_string(s)) return s;
  throw std::invalid_argument(fmt::format("unknown matrix source '{}'", text));
}

std::string MatrixSpec::describe() const {
  switch (source) {
    case MatrixSource::poisson7: return fmt::format("3D Poisson, 7-point stencil, {}^3 grid", n);
    case MatrixSource::poisson27: return fmt::format("3D Poisson, 27-point stencil, {}^3 grid", n);
    case MatrixSource::banded: return fmt::format("banded, {} rows, half-bandwidth {}", n, half_bandwidth);
    case MatrixSource::powerlaw:
      return fmt::format("power-law rows, {} rows, lengths {} * u^(-1/{}) up to {}, seed {}", n, min_row_length,
                         exponent - 1.0, powerlaw_max(*this), seed);
    case MatrixSource::matrix_market: return fmt::format("Matrix Market file {}", file);
    default: return fmt::format("HDF5 CSR file {} (group {})", file, group);
  }
}

std::int64_t generated_rows(const MatrixSpec& s) {
  switch (s.source) {
    case MatrixSource::poisson7:
    case MatrixSource::poisson27: return s.n * s.n * s.n;
    case MatrixSource::banded:
    case MatrixSource::powerlaw: return s.n;
    default: throw std::logic_error("generated_rows: not a generated matrix");
  }
}

std::int64_t generated_row_length(const MatrixSpec& s, std::int64_t row) {
  const std::int64_t n = s.n;
  switch (s.source) {
    case MatrixSource::poisson7:
    case MatrixSource::poisson27: {
      const std::int64_t x = row % n, y = (row / n) % n, z = row / (n * n);
      if (s.source == MatrixSource::poisson27) return inside(x, n) * inside(y, n) * inside(z, n);
      return 1 + (inside(x, n) - 1) + (inside(y, n) - 1) + (inside(z, n) - 1);
    }
    case MatrixSource::banded:
      return std::min(n - 1, row + s.half_bandwidth) - std::max<std::int64_t>(0, row - s.half_bandwidth) + 1;
    case MatrixSource::powerlaw: return powerlaw_length(s, row);
    default: throw std::logic_error("generated_row_length: not a generated matrix");
  }
}

RowBlock<double> generate_rows(const MatrixSpec& s, Range r) {
  const std::int64_t n = s.n;
  if (s.source == MatrixSource::powerlaw) {
    Triplets t;
    for (std::int64_t i = r.begin; i < r.end(); ++i) {
      const std::int64_t len = powerlaw_length(s, i);
      const std::uint64_t row_seed = s.seed + mix64(static_cast<std::uint64_t>(i));
      for (std::int64_t k = 0; k < len; ++k) {
        const std::uint64_t c = random_bits(row_seed, kStreamColumn, static_cast<std::uint64_t>(k));
        const std::uint64_t v = random_bits(row_seed, kStreamValue, static_cast<std::uint64_t>(k));
        const double magnitude = static_cast<double>(1 + (v >> 8) % 4);
        t.push(i, static_cast<std::int64_t>(c % static_cast<std::uint64_t>(n)), (v & 1) ? -magnitude : magnitude);
      }
    }
    return assemble_rows(r.begin, r.count, t);
  }
  RowBlock<double> out;
  out.first_row = r.begin;
  out.row_ptr.resize(static_cast<std::size_t>(r.count) + 1, 0);
  for (std::int64_t i = 0; i < r.count; ++i) out.row_ptr[i + 1] = out.row_ptr[i] + generated_row_length(s, r.begin + i);
  out.col.resize(static_cast<std::size_t>(out.row_ptr.back()));
  out.val.resize(out.col.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < r.count; ++i) {
    const std::int64_t row = r.begin + i;
    std::int64_t at = out.row_ptr[i];
    auto put = [&](std::int64_t col, double v) {
      out.col[at] = col;
      out.val[at] = v;
      ++at;
    };
    if (s.source == MatrixSource::banded) {
      const std::int64_t lo = std::max<std::int64_t>(0, row - s.half_bandwidth);
      const std::int64_t hi = std::min(n - 1, row + s.half_bandwidth);
      for (std::int64_t j = lo; j <= hi; ++j) put(j, j == row ? 2.0 * static_cast<double>(s.half_bandwidth) + 1.0 : -1.0);
      continue;
    }
    // Stencils: neighbours in increasing column order (z slowest), so rows come out sorted.
    const std::int64_t x = row % n, y = (row / n) % n, z = row / (n * n);
    const bool full = s.source == MatrixSource::poisson27;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int offsets = (dx != 0) + (dy != 0) + (dz != 0);
          if (!full && offsets > 1) continue;
          const std::int64_t xx = x + dx, yy = y + dy, zz = z + dz;
          if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
          put(xx + n * (yy + n * zz), offsets == 0 ? (full ? 26.0 : 6.0) : -1.0);
        }
  }
  return out;
}

}  // namespace tessera::spmv
