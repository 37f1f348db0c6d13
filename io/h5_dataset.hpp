#pragma once
// Distributed datasets: every rank writes or reads its own part of one global array with a
// single collective transfer (H5FD_MPIO_COLLECTIVE). The layout on disk is global and never
// depends on the number of ranks, so data written on P ranks reads back on any Q.
//
// Collective: every rank calls with the same name and global shape; a rank with nothing to
// transfer passes an empty part (it selects none but still takes part). Argument mistakes
// (a part outside the global array, ranks disagreeing on the global shape) are caught and
// agreed before any HDF5 call, so they raise the same error everywhere instead of hanging.
//
// Writing to a name that already exists reuses the dataset when its type and extent match
// (overwriting the data) and refuses otherwise.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/box3.hpp"
#include "io/h5_file.hpp"
#include "io/h5_types.hpp"

namespace tessera::io {

struct WriteOptions1D {
  std::int64_t chunk = 0;  // elements per chunk; 0 = contiguous storage
};

struct WriteOptions3D {
  Index3 chunk{0, 0, 0};  // cells per chunk (x, y, z), clamped to the global size; zeros = contiguous
};

namespace detail {
// One rank's part of an N-d transfer, dimensions slowest first (file order).
struct Selection {
  std::vector<hsize_t> global;     // dataset extent
  std::vector<hsize_t> start;      // first element of this rank's block in the dataset
  std::vector<hsize_t> count;      // block size (any zero: this rank transfers nothing)
  std::vector<hsize_t> mem_dims;   // local memory array extent
  std::vector<hsize_t> mem_start;  // first element of the block in memory
  std::vector<hsize_t> chunk;      // empty: contiguous
};
Dataset write_selection(const Group& g, std::string_view name, ElementType type, const void* data,
                        std::size_t data_elements, const Selection& sel);
void read_selection(const Group& g, std::string_view name, ElementType type, void* data, std::size_t data_elements,
                    Selection sel);
Selection selection_1d(std::int64_t offset, std::int64_t count, std::int64_t global, std::int64_t chunk);
Selection selection_3d(const Box3& box, const Strided3& mem, const Index3& chunk);
// Rows [offset, offset + count) of a (global, columns) dataset; global < 0: the file's.
Selection selection_rows(std::int64_t offset, std::int64_t count, std::int64_t columns, std::int64_t global);
// The number of rows of dataset `name`, after checking it is (N, columns): InputError otherwise.
std::int64_t rows_of(const Group& g, std::string_view name, std::int64_t columns);
}  // namespace detail

// ---- 1D -----------------------------------------------------------------------------------

// Writes this rank's `local` elements at [global_offset, global_offset + local.size()) of a
// dataset of global_size elements. T is named explicitly: write_1d<double>(g, "x", v, off, n).
template <class T>
Dataset write_1d(const Group& g, std::string_view name, std::type_identity_t<std::span<const T>> local,
                 std::int64_t global_offset, std::int64_t global_size, const WriteOptions1D& opts = {}) {
  return detail::write_selection(
      g, name, element_type_of<T>(), local.data(), local.size(),
      detail::selection_1d(global_offset, static_cast<std::int64_t>(local.size()), global_size, opts.chunk));
}

// Reads elements [offset, offset + out.size()) into `out`. The dataset must hold exactly T
// (InputError "dataset /x in F has type int64, expected float32") and cover the range.
template <class T>
void read_1d_into(const Group& g, std::string_view name, std::int64_t offset, std::type_identity_t<std::span<T>> out) {
  auto sel = detail::selection_1d(offset, static_cast<std::int64_t>(out.size()), -1, 0);
  detail::read_selection(g, name, element_type_of<T>(), out.data(), out.size(), std::move(sel));
}

template <class T>
std::vector<T> read_1d(const Group& g, std::string_view name, std::int64_t offset, std::int64_t count) {
  std::vector<T> out(static_cast<std::size_t>(count > 0 ? count : 0));
  read_1d_into<T>(g, name, offset, out);
  return out;
}

// ---- rows: (N, C) datasets, a block of whole rows per rank ---------------------------------
// For per-item vectors such as particle Coordinates (C = 3). `local` holds its rows one after
// the other (row-major), so local.size() must be a multiple of `columns`.

template <class T>
Dataset write_rows(const Group& g, std::string_view name, std::type_identity_t<std::span<const T>> local,
                   std::int64_t columns, std::int64_t global_row_offset, std::int64_t global_rows) {
  const auto rows = columns > 0 ? static_cast<std::int64_t>(local.size()) / columns : 0;
  if (rows * columns != static_cast<std::int64_t>(local.size()))
    throw std::invalid_argument("write_rows: the local buffer is not a whole number of rows");
  return detail::write_selection(g, name, element_type_of<T>(), local.data(), local.size(),
                                 detail::selection_rows(global_row_offset, rows, columns, global_rows));
}

// Rows [row_offset, row_offset + out.size() / columns) into `out`. The dataset must be
// (N, columns) of exactly T (InputError naming it otherwise) and hold those rows.
template <class T>
void read_rows_into(const Group& g, std::string_view name, std::int64_t row_offset, std::int64_t columns,
                    std::type_identity_t<std::span<T>> out) {
  const std::int64_t total = detail::rows_of(g, name, columns);
  const auto rows = static_cast<std::int64_t>(out.size()) / columns;
  detail::read_selection(g, name, element_type_of<T>(), out.data(), out.size(),
                         detail::selection_rows(row_offset, rows, columns, total));
}

template <class T>
std::vector<T> read_rows(const Group& g, std::string_view name, std::int64_t row_offset, std::int64_t row_count,
                         std::int64_t columns) {
  std::vector<T> out(static_cast<std::size_t>(row_count > 0 ? row_count * columns : 0));
  read_rows_into<T>(g, name, row_offset, columns, out);
  return out;
}

// ---- 3D -----------------------------------------------------------------------------------

// Writes this rank's box of a global (nz, ny, nx) dataset from local memory laid out as `mem`
// (ghosts and padding skipped by a memory hyperslab, no copy). See io/box3.hpp for the axes.
template <class T>
Dataset write_3d(const Group& g, std::string_view name, std::type_identity_t<std::span<const T>> local,
                 const Box3& box, const Strided3& mem, const WriteOptions3D& opts = {}) {
  return detail::write_selection(g, name, element_type_of<T>(), local.data(), local.size(),
                                 detail::selection_3d(box, mem, opts.chunk));
}

// Reads this rank's box into local memory laid out as `mem`; cells outside the box (ghosts,
// padding) are left untouched. The dataset's extent must equal box.global.
template <class T>
void read_3d(const Group& g, std::string_view name, std::type_identity_t<std::span<T>> local, const Box3& box,
             const Strided3& mem) {
  detail::read_selection(g, name, element_type_of<T>(), local.data(), local.size(),
                         detail::selection_3d(box, mem, {0, 0, 0}));
}

// ---- queries and text ---------------------------------------------------------------------

// Extent in file order (slowest first): {n} for 1D, {nz, ny, nx} for 3D.
std::vector<std::int64_t> dataset_extent(const Group& g, std::string_view name);
ElementType dataset_element_type(const Group& g, std::string_view name);

// A scalar fixed-length string dataset (for text too large or too important for an attribute).
void write_string(const Group& g, std::string_view name, std::string_view text);
std::string read_string(const Group& g, std::string_view name);

}  // namespace tessera::io
