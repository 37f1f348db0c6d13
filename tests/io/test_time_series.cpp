// TimeSeries: collective appends, reopening to continue (restart), truncation of rows written
// after the restart step, and refusal of mismatched columns.
#include <gtest/gtest.h>

#include <vector>

#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;

std::vector<double> row_for(int step, std::uint64_t run) {
  return {static_cast<double>(step), 0.5 * step, test::value_at<double>(run, step)};
}

TEST(TimeSeries, AppendReopenTruncateContinue) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = dir / "series.h5";
  const std::vector<Column> columns{{"step", "1"}, {"time", "s"}, {"energy", "J"}};
  const std::vector<std::string> names{"step", "time", "energy"}, units{"1", "s", "J"};
  {
    File f = File::create(ctx, path);
    TimeSeries ts = TimeSeries::create(f.root(), "diagnostics/energy", columns, 4);  // several chunks
    for (int s = 0; s < 10; ++s) ts.append(row_for(s, 1));
    EXPECT_EQ(ts.rows(), 10);
  }
  {
    // A restart from step 5: rows 6..9 of the interrupted run must go, then the run goes on.
    File f = File::open(ctx, path, Mode::read_write);
    TimeSeries ts = TimeSeries::open_or_create(f.root(), "diagnostics/energy", columns);
    EXPECT_EQ(ts.rows(), 10);
    EXPECT_EQ(ts.columns(), names);
    EXPECT_EQ(ts.units(), units);
    EXPECT_EQ(ts.truncate_after("step", 5.0), 6);
    EXPECT_EQ(ts.rows(), 6);
    for (int s = 6; s < 9; ++s) ts.append(row_for(s, 2));
  }
  File f = File::open(ctx, path);
  TimeSeries ts = TimeSeries::open(f.root(), "diagnostics/energy");
  ASSERT_EQ(ts.rows(), 9);
  EXPECT_EQ(ts.units(), units);
  const std::vector<double> all = ts.read();
  for (int s = 0; s < 9; ++s) {
    const auto want = row_for(s, s <= 5 ? 1 : 2);
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(all[static_cast<std::size_t>(s) * 3 + c], want[c]) << s;
  }
  const std::vector<double> steps = ts.read_column("step");
  EXPECT_EQ(steps, (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(dataset_extent(f.root(), "diagnostics/energy"), (std::vector<std::int64_t>{9, 3}));
}

TEST(TimeSeries, ExplicitTruncateAndRefusals) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "t.h5");
  TimeSeries ts = TimeSeries::create(f.root(), "probe", {{"t", "s"}, {"Ez", "V/m"}});
  for (int s = 0; s < 5; ++s) ts.append({0.1 * s, test::value_at<double>(9, s)});
  ts.truncate(2);
  EXPECT_EQ(ts.rows(), 2);
  ts.append({7.0, 8.0});
  EXPECT_EQ(ts.read(), (std::vector<double>{0.0, test::value_at<double>(9, 0), 0.1, test::value_at<double>(9, 1),
                                            7.0, 8.0}));

  std::string msg = test::thrown_message<InputError>([&] { ts.truncate(4); });
  TESSERA_EXPECT_CONTAINS(msg, "has 3 rows, cannot keep 4");
  msg = test::thrown_message<InputError>(
      [&] { TimeSeries::open_or_create(f.root(), "probe", {{"t", "s"}, {"Ex", "V/m"}}); });
  TESSERA_EXPECT_CONTAINS(msg, "has columns [t, Ez], this run writes [t, Ex]");
  msg = test::thrown_message<InputError>([&] { ts.read_column("Hy"); });
  TESSERA_EXPECT_CONTAINS(msg, "has no column 'Hy'");
  EXPECT_THROW(ts.append({1.0}), std::invalid_argument);
  // Every column names its unit ("1" for pure numbers): an empty one is a programming error.
  EXPECT_THROW(TimeSeries::create(f.root(), "no_units", {{"t", "s"}, {"n", ""}}), std::invalid_argument);
  EXPECT_FALSE(f.root().exists("no_units"));
}

// Names and units are variable-length UTF-8 string arrays, parallel to each other, so h5py
// reads str and h5dump shows no padding.
TEST(TimeSeries, ColumnNamesAndUnitsAreVariableLengthStrings) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "t.h5");
  TimeSeries ts = TimeSeries::create(f.root(), "energy", {{"step", "1"}, {"time", "s"}, {"total", "J"}});
  EXPECT_TRUE(is_vlen_string_attribute(ts.dataset(), "columns"));
  EXPECT_TRUE(is_vlen_string_attribute(ts.dataset(), "units"));
  EXPECT_EQ(read_attribute<std::vector<std::string>>(ts.dataset(), "columns"),
            (std::vector<std::string>{"step", "time", "total"}));
  EXPECT_EQ(read_attribute<std::vector<std::string>>(ts.dataset(), "units"), (std::vector<std::string>{"1", "s", "J"}));
}

// A series of an older tessera (fixed-length names, no units) still opens; taken over by
// open_or_create (a restart), it gets variable-length names and the run's units.
TEST(TimeSeries, OlderSeriesWithoutUnitsIsBroughtUpToDate) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "old.h5");
  {
    TimeSeries ts = TimeSeries::create(f.root(), "energy", {{"step", "1"}, {"total", "J"}});
    ts.append({0.0, 1.5});
    write_attribute(ts.dataset(), "columns", std::vector<std::string>{"step", "total"});  // fixed-length
    remove_attribute(ts.dataset(), "units");
  }
  {
    TimeSeries ts = TimeSeries::open(f.root(), "energy");
    EXPECT_EQ(ts.units(), (std::vector<std::string>{"", ""}));
    EXPECT_FALSE(is_vlen_string_attribute(ts.dataset(), "columns"));
  }
  TimeSeries ts = TimeSeries::open_or_create(f.root(), "energy", {{"step", "1"}, {"total", "J"}});
  EXPECT_EQ(ts.units(), (std::vector<std::string>{"1", "J"}));
  EXPECT_TRUE(is_vlen_string_attribute(ts.dataset(), "columns"));
  EXPECT_EQ(read_attribute<std::vector<std::string>>(ts.dataset(), "units"), (std::vector<std::string>{"1", "J"}));
  EXPECT_EQ(ts.read(), (std::vector<double>{0.0, 1.5}));
}

}  // namespace
}  // namespace tessera::io
