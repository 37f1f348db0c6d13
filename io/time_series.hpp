#pragma once
// TimeSeries: a growing table of doubles (energies, probe samples, TEPS per step) stored as
// an extendible 2D dataset [rows, columns] (unlimited rows, chunked), with
//   "columns"  the column names, a 1D array of variable-length UTF-8 strings
//   "units"    the unit of each column (io/units.hpp), an array of the same length and kind
// h5py: names = list(d.attrs["columns"]); d[:, names.index("total")], in d.attrs["units"][i].
// Files written before the units existed (fixed-length names, no "units") still open; such a
// series gets both attributes rewritten when open_or_create() takes it over.
//
// Collective: every rank calls append() with the same row; rank 0 writes it, the others
// select nothing but take part in the collective extend and write.
//
// Integrity: the dataset carries a checksum (io/checked_io.hpp) kept current by append() and
// truncate(), so io::verify_checksums checks a series like any other dataset.
//
// Restart: open() an existing series and keep appending. The rows an earlier run wrote after
// the restart's checkpoint are replaced as the restarted run rewrites them, never dropped
// before (replace_after(), through io::SeriesLog::resume()): a restart that fails loses no
// row an earlier run published. truncate() cuts a series for good.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/h5_file.hpp"

namespace tessera::io {

// One column: its name and its unit ("s", "J", "1" for counts and pure numbers; not empty).
struct Column {
  std::string name;
  std::string units;
};

class TimeSeries {
 public:
  // Creates dataset `name` under `g` (intermediate groups too) with zero rows.
  static TimeSeries create(const Group& g, std::string_view name, const std::vector<Column>& columns,
                           std::int64_t chunk_rows = 64);
  // Opens an existing series (InputError when missing or not a tessera time series).
  static TimeSeries open(const Group& g, std::string_view name);
  // open() when it exists with these column names, create() when it does not; InputError when
  // it exists with different names. An existing series gets these units (and variable-length
  // names) written when it does not hold them already.
  static TimeSeries open_or_create(const Group& g, std::string_view name, const std::vector<Column>& columns,
                                   std::int64_t chunk_rows = 64);

  // Collective: appends one row of columns().size() values (the same on every rank).
  void append(std::span<const double> row);
  void append(std::initializer_list<double> row) { append(std::span<const double>(row.begin(), row.size())); }
  // Collective: appends whole rows at once (row-major, a multiple of columns().size() values).
  void append_rows(std::span<const double> rows);

  // Collective: keeps the first `rows` rows (InputError when the series has fewer).
  void truncate(std::int64_t rows);
  // Collective: keeps the leading rows whose `column` is <= last (rows appended in increasing
  // order of that column, e.g. the step); returns the number of rows kept.
  std::int64_t truncate_after(std::string_view column, double last);

  // Collective: writes `rows` (whole rows, their `column` increasing) after the leading rows
  // whose `column` is <= `after` and below the first new value, in place of the rows there
  // up to the last new value; the rows beyond it (an earlier run's, not yet rewritten) stay
  // after the new ones. Returns how many such rows stay. With no such rows: append_rows().
  std::int64_t replace_after(std::string_view column, double after, std::span<const double> rows);

  // Collective reads (every rank gets the same values): all rows row-major, or one column.
  std::vector<double> read() const;
  std::vector<double> read_column(std::string_view column) const;

  std::int64_t rows() const { return rows_; }
  const std::vector<std::string>& columns() const { return columns_; }
  // Parallel to columns(); empty strings for a series written without units.
  const std::vector<std::string>& units() const { return units_; }
  std::size_t column_index(std::string_view column) const;  // InputError when unknown
  const Dataset& dataset() const { return dataset_; }

 private:
  TimeSeries(Dataset d, std::vector<std::string> columns, std::vector<std::string> units, std::int64_t rows)
      : dataset_(std::move(d)), columns_(std::move(columns)), units_(std::move(units)), rows_(rows) {}
  void set_rows(std::int64_t rows);
  void store_checksum(std::uint64_t sum);
  std::uint64_t current_checksum() const;

  Dataset dataset_;
  std::vector<std::string> columns_;
  std::vector<std::string> units_;
  std::int64_t rows_ = 0;
};

}  // namespace tessera::io
