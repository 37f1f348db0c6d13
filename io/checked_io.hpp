#pragma once
// Distributed datasets that carry their own checksum (io/checksum.hpp): the writers store it
// in the dataset's "checksum" attribute (with "checksum_algorithm"); the readers recompute it
// over the data every rank read and refuse a mismatch with InputError ("... is corrupted"),
// agreed across the ranks, as is a dataset HDF5 cannot read.
//
// The check needs the whole dataset: the ranks' reads must together cover every element
// exactly once (any partition, on any number of ranks). The 1D readers verify that the
// ranges tile the dataset; the 3D readers check that the box volumes add up.
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/checksum.hpp"
#include "io/h5_dataset.hpp"

namespace tessera::io {

inline constexpr const char* kChecksumAttribute = "checksum";
inline constexpr const char* kChecksumAlgorithmAttribute = "checksum_algorithm";

namespace detail {
// Collective: runs `read` (this rank's part of dataset `name`) on every rank and agrees on the
// outcome, so a damaged or missing dataset is one InputError on every rank ("dataset X in F
// is corrupted: it cannot be read (...)" for an HDF5 failure), never a rank left behind.
void agreed_read(const Group& g, std::string_view name, const std::function<void()>& read);
// Collective: stores the global checksum (sum of the ranks' parts) on `d`.
void record_checksum(const Dataset& d, std::uint64_t local_part);
// Collective: compares the global checksum of what the ranks read with the stored one
// (agreed: one InputError on every rank).
void verify_checksum(const Group& g, std::string_view name, std::uint64_t local_part);
// Collective: std::invalid_argument unless the ranks' [offset, offset + count) tile [0, n).
void require_tiling_1d(const Group& g, std::string_view name, std::int64_t offset, std::int64_t count);
// Collective: std::invalid_argument unless the boxes' volumes add up to the global volume.
void require_tiling_3d(const Group& g, std::string_view name, const Box3& box);
}  // namespace detail

template <class T>
Dataset write_1d_checked(const Group& g, std::string_view name, std::type_identity_t<std::span<const T>> local,
                         std::int64_t global_offset, std::int64_t global_size, const WriteOptions1D& opts = {}) {
  Dataset d = write_1d<T>(g, name, local, global_offset, global_size, opts);
  detail::record_checksum(d, checksum_local<T>(local, global_offset));
  return d;
}

// (global_rows, columns) rows, checksummed in the file's row-major order.
template <class T>
Dataset write_rows_checked(const Group& g, std::string_view name, std::type_identity_t<std::span<const T>> local,
                           std::int64_t columns, std::int64_t global_row_offset, std::int64_t global_rows) {
  Dataset d = write_rows<T>(g, name, local, columns, global_row_offset, global_rows);
  detail::record_checksum(d, checksum_local<T>(local, global_row_offset * columns));
  return d;
}

template <class T>
Dataset write_3d_checked(const Group& g, std::string_view name, std::type_identity_t<std::span<const T>> local,
                         const Box3& box, const Strided3& mem, const WriteOptions3D& opts = {}) {
  Dataset d = write_3d<T>(g, name, local, box, mem, opts);
  detail::record_checksum(d, checksum_local_3d<T>(local, box, mem));
  return d;
}

template <class T>
void read_1d_checked_into(const Group& g, std::string_view name, std::int64_t offset,
                          std::type_identity_t<std::span<T>> out) {
  const auto count = static_cast<std::int64_t>(out.size());
  detail::agreed_read(g, name, [&] { read_1d_into<T>(g, name, offset, out); });
  detail::require_tiling_1d(g, name, offset, count);
  detail::verify_checksum(g, name, checksum_local<T>(std::span<const T>(out), offset));
}

template <class T>
std::vector<T> read_1d_checked(const Group& g, std::string_view name, std::int64_t offset, std::int64_t count) {
  std::vector<T> out(static_cast<std::size_t>(count > 0 ? count : 0));
  read_1d_checked_into<T>(g, name, offset, out);
  return out;
}

template <class T>
void read_3d_checked(const Group& g, std::string_view name, std::type_identity_t<std::span<T>> local,
                     const Box3& box, const Strided3& mem) {
  detail::agreed_read(g, name, [&] { read_3d<T>(g, name, local, box, mem); });
  detail::require_tiling_3d(g, name, box);
  detail::verify_checksum(g, name, checksum_local_3d<T>(std::span<const T>(local), box, mem));
}

}  // namespace tessera::io
