#include "solvers/spmv/matrix_io.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>
#include <type_traits>

#include "comm/collectives.hpp"
#include "core/error.hpp"
#include "io/agree.hpp"
#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/matrix_market.hpp"

namespace tessera::spmv {
namespace {

// The same rows balanced by nonzeros.
LoadedMatrix balanced(comm::Context& ctx, RowBlock<double> uniform_rows, std::int64_t rows, std::int64_t cols,
                      std::string description) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(uniform_rows.rows()));
  for (std::int64_t r = 0; r < uniform_rows.rows(); ++r) lengths[r] = uniform_rows.row_ptr[r + 1] - uniform_rows.row_ptr[r];
  LoadedMatrix out;
  out.part = balanced_partition(ctx, rows, lengths);
  out.rows = ctx.size() == 1 ? std::move(uniform_rows) : redistribute(ctx, uniform_rows, out.part);
  out.cols = cols;
  out.description = std::move(description);
  return out;
}

LoadedMatrix generated(comm::Context& ctx, const MatrixSpec& spec, const SizeCheck& check) {
  const std::int64_t n = generated_rows(spec);
  const Range uniform = block_range(n, ctx.size(), ctx.rank());
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(uniform.count));
  std::int64_t local = 0;
  for (std::int64_t i = 0; i < uniform.count; ++i) local += lengths[i] = generated_row_length(spec, uniform.begin + i);
  if (check) check(n, n, comm::allreduce(ctx, local, comm::Op::sum), spec.describe());
  LoadedMatrix out;
  out.part = balanced_partition(ctx, n, lengths);
  out.rows = generate_rows(spec, out.part.range(ctx.rank()));
  out.cols = n;
  out.description = spec.describe();
  return out;
}

LoadedMatrix matrix_market(comm::Context& ctx, const MatrixSpec& spec, const SizeCheck& check) {
  io::MatrixMarketOptions o;
  o.what = "the matrix file";
  if (check)
    o.on_header = [&](const io::MatrixMarketHeader& h) {
      const std::int64_t mirrored = h.symmetry == io::MatrixSymmetry::general ? h.entries : 2 * h.entries;
      check(h.rows, h.columns, mirrored, fmt::format("{}: {} x {} with {} entries in the header", spec.file, h.rows,
                                                     h.columns, h.entries));
    };
  io::MatrixMarketEntries e = io::read_matrix_market(ctx, spec.file, o);
  const io::MatrixMarketHeader h = e.header;
  Triplets t;
  const bool mirror = h.symmetry != io::MatrixSymmetry::general;
  const double sign = h.symmetry == io::MatrixSymmetry::skew_symmetric ? -1.0 : 1.0;
  for (std::size_t k = 0; k < e.row.size(); ++k) {
    t.push(e.row[k], e.col[k], e.value[k]);
    if (mirror && e.row[k] != e.col[k]) t.push(e.col[k], e.row[k], sign * e.value[k]);
  }
  e = {};
  RowBlock<double> uniform = distribute(ctx, t, uniform_partition(h.rows, ctx.size()));
  t = {};
  return balanced(ctx, std::move(uniform), h.rows, h.columns,
                  fmt::format("Matrix Market {} ({}, {})", spec.file, io::to_string(h.field), io::to_string(h.symmetry)));
}

// A 1-D dataset of an integer (floating) type as int64 (double).
template <class Want>
std::vector<Want> read_converted(const io::Group& g, const char* name, std::int64_t offset, std::int64_t count) {
  const io::ElementType type = io::dataset_element_type(g, name);
  auto convert = [&](auto tag) {
    using F = decltype(tag);
    const std::vector<F> in = io::read_1d<F>(g, name, offset, count);
    return std::vector<Want>(in.begin(), in.end());
  };
  if constexpr (std::is_integral_v<Want>) {
    if (type == io::ElementType::int64) return io::read_1d<std::int64_t>(g, name, offset, count);
    if (type == io::ElementType::int32) return convert(std::int32_t{});
    if (type == io::ElementType::uint32) return convert(std::uint32_t{});
  } else {
    if (type == io::ElementType::float64) return io::read_1d<double>(g, name, offset, count);
    if (type == io::ElementType::float32) return convert(float{});
  }
  throw std::logic_error("read_converted: type checked before");
}

LoadedMatrix hdf5_csr(comm::Context& ctx, const MatrixSpec& spec, const SizeCheck& check) {
  const std::string& file = spec.file;
  const io::File f = io::File::open(ctx, file);
  const io::Group root = f.root();
  std::optional<io::Group> opened;
  io::agree_input(ctx, [&] {
    if (spec.group != "/" && !root.exists(spec.group))
      throw InputError(fmt::format("{}: {}: no group {} (spmv.matrix.group)", spec.where_file, file, spec.group));
  });
  if (spec.group != "/") opened.emplace(root.open_group(spec.group));
  const io::Group& g = opened ? *opened : root;
  const std::string row_ptr = g.path_of("row_ptr"), col = g.path_of("col"), val = g.path_of("val");
  std::int64_t rows = 0, cols = 0, nnz = 0;
  io::agree_input(ctx, [&] {
    for (const std::string* d : {&row_ptr, &col, &val})
      if (!g.exists(*d))
        throw InputError(fmt::format("{}: no dataset {}: an HDF5 CSR matrix is the datasets {}, {} and {}", file, *d,
                                     row_ptr, col, val));
    auto one_d = [&](const std::string& d) {
      const auto extent = io::dataset_extent(g, d);
      if (extent.size() != 1)
        throw InputError(fmt::format("{}: dataset {} has {} dimensions; CSR datasets are 1-D", file, d, extent.size()));
      return extent[0];
    };
    const std::int64_t ptr_n = one_d(row_ptr);
    nnz = one_d(col);
    if (one_d(val) != nnz)
      throw InputError(fmt::format("{}: dataset {} has {} entries but {} has {}; they must be as long", file, val,
                                   one_d(val), col, nnz));
    if (ptr_n < 1) throw InputError(fmt::format("{}: dataset {} is empty; it holds rows + 1 entries", file, row_ptr));
    rows = ptr_n - 1;
    for (const std::string* d : {&row_ptr, &col}) {
      const io::ElementType t = io::dataset_element_type(g, *d);
      if (t != io::ElementType::int64 && t != io::ElementType::int32 && t != io::ElementType::uint32)
        throw InputError(fmt::format("{}: dataset {} holds {}; CSR indices are int32 or int64", file, *d,
                                     io::to_string(t)));
    }
    const io::ElementType vt = io::dataset_element_type(g, val);
    if (vt != io::ElementType::float64 && vt != io::ElementType::float32)
      throw InputError(fmt::format("{}: dataset {} holds {}; values are float32 or float64", file, val, io::to_string(vt)));
    cols = rows;
    if (io::has_attribute(g, "shape")) {
      const auto shape = io::read_attribute<std::vector<std::int64_t>>(g, "shape");
      if (shape.size() != 2 || shape[0] != rows || shape[1] < 0)
        throw InputError(fmt::format("{}: attribute shape of group {} is [{}] but {} holds {} rows", file, g.name(),
                                     fmt::join(shape, ", "), row_ptr, rows));
      cols = shape[1];
    }
  });
  if (check) check(rows, cols, nnz, fmt::format("{}: {} x {} with {} nonzeros", file, rows, cols, nnz));

  // Each rank reads row_ptr over its rows (and one past), checks it, then its entries.
  const Range mine = block_range(rows, ctx.size(), ctx.rank());
  const bool reads = mine.count > 0 || (rows == 0 && ctx.is_root());
  const std::vector<std::int64_t> ptr = read_converted<std::int64_t>(g, row_ptr.c_str(), reads ? mine.begin : 0,
                                                                     reads ? mine.count + 1 : 0);
  io::agree_input(ctx, [&] {
    if (!reads) return;
    if (mine.begin == 0 && ptr[0] != 0)
      throw InputError(fmt::format("{}: dataset {} starts at {}; it must start at 0", file, row_ptr, ptr[0]));
    for (std::int64_t k = 0; k < mine.count; ++k)
      if (ptr[k + 1] < ptr[k])
        throw InputError(fmt::format("{}: dataset {} decreases at row {}: row_ptr[{}] = {}, row_ptr[{}] = {} (it must "
                                     "not decrease)",
                                     file, row_ptr, mine.begin + k, mine.begin + k, ptr[k], mine.begin + k + 1,
                                     ptr[k + 1]));
    if (mine.end() == rows && ptr.back() != nnz)
      throw InputError(fmt::format("{}: dataset {} ends at {}, but {} and {} hold {} entries", file, row_ptr,
                                   ptr.back(), col, val, nnz));
  });
  const std::int64_t first = reads ? ptr.front() : 0, count = reads ? ptr.back() - ptr.front() : 0;
  const std::vector<std::int64_t> c = read_converted<std::int64_t>(g, col.c_str(), first, count);
  const std::vector<double> v = read_converted<double>(g, val.c_str(), first, count);
  Triplets t;
  t.row.resize(static_cast<std::size_t>(count));
  io::agree_input(ctx, [&] {
    for (std::int64_t r = 0; r < mine.count; ++r)
      for (std::int64_t k = ptr[r] - first; k < ptr[r + 1] - first; ++k) {
        t.row[k] = mine.begin + r;
        if (c[k] < 0 || c[k] >= cols)
          throw InputError(fmt::format("{}: dataset {}: entry {} (row {}) is column {}, outside [0, {})", file, col,
                                       first + k, mine.begin + r, c[k], cols));
        if (!std::isfinite(v[k]))
          throw InputError(fmt::format("{}: dataset {}: entry {} (row {}) is {}; values must be finite", file, val,
                                       first + k, mine.begin + r, v[k]));
      }
  });
  t.col = c;
  t.val = v;
  RowBlock<double> uniform = assemble_rows(mine.begin, mine.count, t);
  return balanced(ctx, std::move(uniform), rows, cols, fmt::format("HDF5 CSR {} (group {})", file, spec.group));
}

}  // namespace

LoadedMatrix load_matrix(comm::Context& ctx, const MatrixSpec& spec, const SizeCheck& check) {
  switch (spec.source) {
    case MatrixSource::matrix_market: return matrix_market(ctx, spec, check);
    case MatrixSource::hdf5: return hdf5_csr(ctx, spec, check);
    default: return generated(ctx, spec, check);
  }
}

template <class T>
void write_csr(comm::Context& ctx, const io::Group& g, const DistMatrix<T>& m) {
  const RowBlock<T> rows = global_rows(m);
  const std::int64_t first = comm::exscan(ctx, rows.nnz());
  const bool last = ctx.rank() == ctx.size() - 1;
  std::vector<std::int64_t> ptr(static_cast<std::size_t>(rows.rows() + (last ? 1 : 0)));
  for (std::size_t i = 0; i < ptr.size(); ++i) ptr[i] = first + rows.row_ptr[i];
  io::write_units(io::write_1d_checked<std::int64_t>(g, "row_ptr", ptr, m.my_rows.begin, m.rows + 1),
                  io::kDimensionless);
  io::write_units(io::write_1d_checked<std::int64_t>(g, "col", rows.col, first, m.nnz), io::kDimensionless);
  io::write_units(io::write_1d_checked<T>(g, "val", rows.val, first, m.nnz), io::kDimensionless);
  io::write_attribute(g, "shape", std::vector<std::int64_t>{m.rows, m.cols});
}

template void write_csr<float>(comm::Context&, const io::Group&, const DistMatrix<float>&);
template void write_csr<double>(comm::Context&, const io::Group&, const DistMatrix<double>&);

}  // namespace tessera::spmv
