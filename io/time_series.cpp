#include "io/time_series.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "io/agree.hpp"
#include "io/checked_io.hpp"
#include "io/checksum.hpp"
#include "io/h5_attribute.hpp"
#include "io/units.hpp"

namespace tessera::io {
namespace {

constexpr const char* kColumns = "columns";

std::vector<std::string> names_of(const std::vector<Column>& columns) {
  std::vector<std::string> out;
  for (const Column& c : columns) out.push_back(c.name);
  return out;
}

std::vector<std::string> units_of(const std::vector<Column>& columns, const std::string& series) {
  std::vector<std::string> out;
  for (const Column& c : columns) {
    if (c.units.empty())
      throw std::invalid_argument(fmt::format("time series {}: column '{}' has no units (\"1\" names a pure number)",
                                              series, c.name));
    out.push_back(c.units);
  }
  return out;
}

// Both attributes as variable-length UTF-8 string arrays (h5py: str; h5dump: no padding).
void write_column_attributes(const Dataset& d, const std::vector<std::string>& names,
                             const std::vector<std::string>& units) {
  write_vlen_attribute(d, kColumns, names);
  write_vlen_attribute(d, kUnitsAttribute, units);
}

Handle collective_dxpl(const Dataset& d) {
  Handle dxpl(detail::check_id(H5Pcreate(H5P_DATASET_XFER), "create a transfer list for", d.name(), d.file_name()));
  detail::check_status(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "set collective transfer for", d.name(),
                       d.file_name());
  return dxpl;
}

void agree_status(const Dataset& d, herr_t rc, std::string_view action) {
  agree_input(d.context(), [&] {
    if (rc < 0) detail::throw_h5(action, d.name(), d.file_name());
  });
}

}  // namespace

TimeSeries TimeSeries::create(const Group& g, std::string_view name, const std::vector<Column>& columns,
                              std::int64_t chunk_rows) {
  const std::string full = g.path_of(name);
  if (columns.empty()) throw std::invalid_argument(fmt::format("time series {} needs at least one column", full));
  std::vector<std::string> names = names_of(columns), units = units_of(columns, full);
  const hsize_t ncols = columns.size();
  const hsize_t dims[2] = {0, ncols};
  const hsize_t maxdims[2] = {H5S_UNLIMITED, ncols};
  const hsize_t chunk[2] = {static_cast<hsize_t>(std::max<std::int64_t>(chunk_rows, 1)), ncols};
  Handle space(detail::check_id(H5Screate_simple(2, dims, maxdims), "create the dataspace of", full, g.file_name()));
  Handle dcpl(detail::check_id(H5Pcreate(H5P_DATASET_CREATE), "create a creation list for", full, g.file_name()));
  detail::check_status(H5Pset_chunk(dcpl, 2, chunk), "set chunking of", full, g.file_name());
  Handle lcpl(detail::check_id(H5Pcreate(H5P_LINK_CREATE), "create a link list for", full, g.file_name()));
  detail::check_status(H5Pset_create_intermediate_group(lcpl, 1), "set intermediate groups for", full,
                       g.file_name());
  Handle d(detail::check_id(H5Dcreate2(g.id(), full.c_str(), H5T_NATIVE_DOUBLE, space, lcpl, dcpl, H5P_DEFAULT),
                            "create time series", full, g.file_name()));
  Dataset ds(std::move(d), g.context(), g.file_name(), full);
  write_column_attributes(ds, names, units);
  TimeSeries ts(std::move(ds), std::move(names), std::move(units), 0);
  ts.store_checksum(0);
  return ts;
}

TimeSeries TimeSeries::open(const Group& g, std::string_view name) {
  Dataset d = g.open_dataset(name);
  d.require_type(ElementType::float64);
  const std::vector<std::int64_t> ext = d.extent();
  if (ext.size() != 2 || !has_attribute(d, kColumns))
    throw InputError(fmt::format("dataset {} in {} is not a time series (a 2D table with a '{}' attribute)", d.name(),
                                 d.file_name(), kColumns));
  auto columns = read_attribute<std::vector<std::string>>(d, kColumns);
  if (static_cast<std::int64_t>(columns.size()) != ext[1])
    throw InputError(fmt::format("time series {} in {} has {} columns but {} column names", d.name(), d.file_name(),
                                 ext[1], columns.size()));
  std::vector<std::string> units(columns.size());
  if (has_attribute(d, kUnitsAttribute)) {
    units = read_attribute<std::vector<std::string>>(d, kUnitsAttribute);
    if (units.size() != columns.size())
      throw InputError(fmt::format("time series {} in {} has {} columns but {} units", d.name(), d.file_name(),
                                   columns.size(), units.size()));
  }
  return TimeSeries(std::move(d), std::move(columns), std::move(units), ext[0]);
}

TimeSeries TimeSeries::open_or_create(const Group& g, std::string_view name, const std::vector<Column>& columns,
                                      std::int64_t chunk_rows) {
  if (!g.exists(name)) return create(g, name, columns, chunk_rows);
  TimeSeries ts = open(g, name);
  const std::vector<std::string> names = names_of(columns);
  if (ts.columns() != names)
    throw InputError(fmt::format("time series {} in {} has columns [{}], this run writes [{}]", ts.dataset().name(),
                                 ts.dataset().file_name(), fmt::join(ts.columns(), ", "), fmt::join(names, ", ")));
  std::vector<std::string> units = units_of(columns, ts.dataset().name());
  // A series of an older tessera (fixed-length names, no units): brought up to date.
  if (ts.units() != units || !is_vlen_string_attribute(ts.dataset(), kColumns)) {
    write_column_attributes(ts.dataset(), names, units);
    ts.units_ = std::move(units);
  }
  return ts;
}

std::size_t TimeSeries::column_index(std::string_view column) const {
  const auto it = std::find(columns_.begin(), columns_.end(), column);
  if (it == columns_.end())
    throw InputError(fmt::format("time series {} in {} has no column '{}' (columns: {})", dataset_.name(),
                                 dataset_.file_name(), column, fmt::join(columns_, ", ")));
  return static_cast<std::size_t>(it - columns_.begin());
}

void TimeSeries::store_checksum(std::uint64_t sum) {
  write_attribute(dataset_, kChecksumAttribute, sum);
  write_attribute(dataset_, kChecksumAlgorithmAttribute, kChecksumAlgorithm);
}

std::uint64_t TimeSeries::current_checksum() const {
  if (has_attribute(dataset_, kChecksumAttribute) && has_attribute(dataset_, kChecksumAlgorithmAttribute) &&
      read_attribute<std::string>(dataset_, kChecksumAlgorithmAttribute) == kChecksumAlgorithm)
    return read_attribute<std::uint64_t>(dataset_, kChecksumAttribute);
  const std::vector<double> all = read();  // a series written before it carried a checksum
  return checksum_local<double>(all, 0);
}

void TimeSeries::set_rows(std::int64_t rows) {
  const hsize_t dims[2] = {static_cast<hsize_t>(rows), columns_.size()};
  detail::check_status(H5Dset_extent(dataset_.id(), dims), "resize time series", dataset_.name(),
                       dataset_.file_name());
  if (rows < rows_) {
    // Shrinking rewrites the last partial chunk (the dropped rows become fill values) through
    // HDF5's cache; flush it now, or it would later overwrite rows appended after this.
    detail::check_status(H5Dflush(dataset_.id()), "flush time series", dataset_.name(), dataset_.file_name());
  }
  rows_ = rows;
}

void TimeSeries::append(std::span<const double> row) {
  if (row.size() != columns_.size())  // the same on every rank: all callers pass the same row
    throw std::invalid_argument(fmt::format("time series {}: row of {} values, expected {} ({})", dataset_.name(),
                                            row.size(), columns_.size(), fmt::join(columns_, ", ")));
  append_rows(row);
}

void TimeSeries::append_rows(std::span<const double> rows) {
  if (rows.empty()) return;
  if (rows.size() % columns_.size() != 0)
    throw std::invalid_argument(fmt::format("time series {}: {} values are not whole rows of {} ({})",
                                            dataset_.name(), rows.size(), columns_.size(), fmt::join(columns_, ", ")));
  const auto count = static_cast<std::int64_t>(rows.size() / columns_.size());
  const std::uint64_t before = current_checksum();
  const std::int64_t first = rows_;
  set_rows(rows_ + count);
  Handle file_space(detail::check_id(H5Dget_space(dataset_.id()), "read the dataspace of", dataset_.name(),
                                     dataset_.file_name()));
  const hsize_t block[2] = {static_cast<hsize_t>(count), columns_.size()};
  Handle mem_space(detail::check_id(H5Screate_simple(2, block, nullptr), "create a memory space for", dataset_.name(),
                                    dataset_.file_name()));
  if (dataset_.context().rank() == 0) {
    const hsize_t start[2] = {static_cast<hsize_t>(first), 0};
    detail::check_status(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, block, nullptr),
                         "select the new rows of", dataset_.name(), dataset_.file_name());
  } else {
    detail::check_status(H5Sselect_none(file_space), "select nothing in", dataset_.name(), dataset_.file_name());
    detail::check_status(H5Sselect_none(mem_space), "select nothing in memory for", dataset_.name(),
                         dataset_.file_name());
  }
  Handle dxpl = collective_dxpl(dataset_);
  const herr_t rc = H5Dwrite(dataset_.id(), H5T_NATIVE_DOUBLE, mem_space, file_space, dxpl, rows.data());
  agree_status(dataset_, rc, "append rows to time series");
  // Every rank holds the rows, so every rank adds the same term (io/checksum.hpp).
  store_checksum(before + checksum_local<double>(rows, first * static_cast<std::int64_t>(columns_.size())));
}

void TimeSeries::truncate(std::int64_t rows) {
  if (rows < 0 || rows > rows_)
    throw InputError(fmt::format("time series {} in {} has {} rows, cannot keep {}", dataset_.name(),
                                 dataset_.file_name(), rows_, rows));
  if (rows < rows_) {
    set_rows(rows);
    const std::vector<double> kept = read();
    store_checksum(checksum_local<double>(kept, 0));
  }
}

std::int64_t TimeSeries::truncate_after(std::string_view column, double last) {
  const std::vector<double> values = read_column(column);
  std::int64_t keep = 0;
  while (keep < rows_ && values[static_cast<std::size_t>(keep)] <= last) ++keep;
  truncate(keep);
  return keep;
}

std::int64_t TimeSeries::replace_after(std::string_view column, double after, std::span<const double> rows) {
  const std::size_t ncols = columns_.size();
  if (rows.size() % ncols != 0)
    throw std::invalid_argument(fmt::format("time series {}: {} values are not whole rows of {} ({})",
                                            dataset_.name(), rows.size(), ncols, fmt::join(columns_, ", ")));
  const std::size_t c = column_index(column);
  const std::vector<double> all = read();
  if (!rows.empty()) after = std::min(after, std::nextafter(rows[c], -HUGE_VAL));
  std::int64_t keep = 0;
  while (keep < rows_ && all[static_cast<std::size_t>(keep) * ncols + c] <= after) ++keep;
  const double last = rows.empty() ? after : rows[rows.size() - ncols + c];
  std::int64_t beyond = keep;  // the first row past the new ones: it and those after it stay
  while (beyond < rows_ && all[static_cast<std::size_t>(beyond) * ncols + c] <= last) ++beyond;
  if (keep == rows_) {  // nothing of an earlier run's after them: a plain append
    append_rows(rows);
    return 0;
  }
  std::vector<double> tail(rows.begin(), rows.end());
  tail.insert(tail.end(), all.begin() + static_cast<std::ptrdiff_t>(beyond * std::int64_t(ncols)), all.end());
  set_rows(keep);
  store_checksum(checksum_local<double>(std::span<const double>(all).first(static_cast<std::size_t>(keep) * ncols), 0));
  append_rows(tail);
  return rows_ - keep - static_cast<std::int64_t>(rows.size() / ncols);
}

std::vector<double> TimeSeries::read() const {
  std::vector<double> out(static_cast<std::size_t>(rows_) * columns_.size());
  if (out.empty()) return out;
  Handle dxpl = collective_dxpl(dataset_);
  const herr_t rc = H5Dread(dataset_.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, out.data());
  agree_status(dataset_, rc, "read time series");
  return out;
}

std::vector<double> TimeSeries::read_column(std::string_view column) const {
  const std::size_t c = column_index(column);
  const std::vector<double> all = read();
  std::vector<double> out(static_cast<std::size_t>(rows_));
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = all[r * columns_.size() + c];
  return out;
}

}  // namespace tessera::io
