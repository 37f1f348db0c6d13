// SeriesLog: rows and changes wait in memory and reach the file, in order and verified, only
// when published; the file between publications is the last published one, whole.
#include <gtest/gtest.h>

#include <vector>

#include "io/h5.hpp"
#include "io/checked_io.hpp"
#include "io/output_file.hpp"
#include "io/series_log.hpp"
#include "io/verify.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;

std::vector<double> rows_of(const std::filesystem::path& path, const char* series) {
  File f = File::open(context(), path);
  return TimeSeries::open(f.root(), series).read();
}

TEST(SeriesLog, RowsAndChangesReachTheFileOnlyWhenPublishedInOrder) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = dir / "log.h5";
  {
    OutputFile out(ctx, path);
    TimeSeries::create(out.root(), "a", {{"step", "1"}, {"x", "m"}});
    TimeSeries::create(out.root(), "b", {{"step", "1"}, {"y", "m"}, {"z", "m"}});
    out.commit();
  }
  SeriesLog log(ctx, path);
  std::vector<double> want_a, want_b;
  for (int s = 0; s < 7; ++s) {
    const std::vector<double> a{double(s), test::value_at<double>(3, s)};
    log.add_row("a", a);
    want_a.insert(want_a.end(), a.begin(), a.end());
    if (s % 3 == 0) {
      const std::vector<double> b{double(s), test::value_at<double>(4, s), test::value_at<double>(5, s)};
      log.add_row("b", b);
      want_b.insert(want_b.end(), b.begin(), b.end());
    }
    // Per-rank data, as BFS trees are: rank r writes its window of a global array.
    log.add_change(
        [s, r = ctx.rank(), p = ctx.size()](const Group& root) {
          const std::vector<std::int64_t> mine{s * 100 + r};
          write_1d_checked<std::int64_t>(root.require_group("parts"), std::to_string(s), mine, r, p);
        },
        sizeof(std::int64_t));
    log.publish_if_due();  // not due: the first publication waits at least kMinSeconds
  }
  EXPECT_TRUE(log.pending());
  EXPECT_TRUE(rows_of(path, "a").empty()) << "rows reached the file before publish()";

  log.publish();
  EXPECT_FALSE(log.pending());
  EXPECT_EQ(rows_of(path, "a"), want_a);
  EXPECT_EQ(rows_of(path, "b"), want_b);
  verify_checksums(ctx, path);  // throws on a mismatch: the series' checksums were kept current
  File f = File::open(ctx, path);
  for (int s = 0; s < 7; ++s) {
    const auto all = read_1d<std::int64_t>(f.root().open_group("parts"), std::to_string(s), 0, ctx.size());
    for (int r = 0; r < ctx.size(); ++r) EXPECT_EQ(all[static_cast<std::size_t>(r)], s * 100 + r);
  }
  log.publish();  // nothing pending: no copy, no change
  EXPECT_EQ(rows_of(path, "a"), want_a);
}

// A restart from step 10 of a series an earlier run published up to step 20: the rows after
// the checkpoint stay published until the restarted run's rows replace them, so a restart
// that fails at any point loses none of them, and no step is ever missing from the file.
TEST(SeriesLog, ResumeKeepsAnEarlierRunsRowsUntilRewritten) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  const auto path = dir / "log.h5";
  auto row = [](int step, double x) { return std::vector<double>{double(step), x}; };
  auto steps_of = [&] {
    std::vector<int> out;
    const auto all = rows_of(path, "a");
    for (std::size_t i = 0; i < all.size(); i += 2) out.push_back(int(all[i]));
    return out;
  };
  auto x_at = [&](int step) {
    const auto all = rows_of(path, "a");
    for (std::size_t i = 0; i < all.size(); i += 2)
      if (int(all[i]) == step) return all[i + 1];
    return -1.0;
  };
  auto range = [](int a, int b) {
    std::vector<int> v;
    for (int i = a; i <= b; ++i) v.push_back(i);
    return v;
  };
  {
    OutputFile out(ctx, path);
    TimeSeries::create(out.root(), "a", {{"step", "1"}, {"x", "m"}});  // one chunk holds them all
    out.commit();
    SeriesLog first(ctx, path);
    for (int s = 0; s <= 20; ++s) first.add_row("a", row(s, 1.0));
    first.publish();
  }
  ASSERT_EQ(steps_of(), range(0, 20));

  SeriesLog log(ctx, path);
  log.resume("a", "step", 10);
  for (int s = 11; s <= 15; ++s) log.add_row("a", row(s, 2.0));
  log.publish();  // the earlier run's 16..20 stay after this run's 11..15
  EXPECT_EQ(steps_of(), range(0, 20));
  EXPECT_EQ(x_at(10), 1.0);
  EXPECT_EQ(x_at(15), 2.0);
  EXPECT_EQ(x_at(16), 1.0);
  verify_checksums(ctx, path);
  // A sparser cadence: step 18 replaces 16..18 (this run passed them), 19 and 20 stay.
  log.add_row("a", row(18, 3.0));
  log.publish();
  std::vector<int> want = range(0, 15);
  for (int s : {18, 19, 20}) want.push_back(s);
  EXPECT_EQ(steps_of(), want);
  EXPECT_EQ(x_at(18), 3.0);
  EXPECT_EQ(x_at(19), 1.0);
  verify_checksums(ctx, path);
  // Past the earlier run's end (this run has no rows at 19 and 20 and has passed them): the
  // earlier rows are all replaced, and from here rows are plain appends.
  for (int s = 21; s <= 24; ++s) log.add_row("a", row(s, 4.0));
  log.publish();
  want = range(0, 15);
  for (int s : {18, 21, 22, 23, 24}) want.push_back(s);
  EXPECT_EQ(steps_of(), want);
  verify_checksums(ctx, path);
  log.add_row("a", row(25, 5.0));
  log.publish();
  want.push_back(25);
  EXPECT_EQ(steps_of(), want);
  verify_checksums(ctx, path);
}

TEST(TimeSeries, AppendRowsAtOnceEqualsOneByOne) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  std::vector<double> rows;
  for (int i = 0; i < 3 * 11; ++i) rows.push_back(test::value_at<double>(8, i));
  File f = File::create(ctx, dir / "t.h5");
  const std::vector<Column> pqr{{"p", "1"}, {"q", "1"}, {"r", "1"}};
  TimeSeries one = TimeSeries::create(f.root(), "one", pqr, 4);
  TimeSeries many = TimeSeries::create(f.root(), "many", pqr, 4);
  for (int r = 0; r < 11; ++r) one.append(std::span<const double>(rows).subspan(3 * r, 3));
  many.append_rows(std::span<const double>(rows).first(3 * 5));
  many.append_rows(std::span<const double>(rows).subspan(3 * 5));
  EXPECT_EQ(one.read(), rows);
  EXPECT_EQ(many.read(), rows);
  EXPECT_EQ(read_attribute<std::uint64_t>(one.dataset(), "checksum"),
            read_attribute<std::uint64_t>(many.dataset(), "checksum"));
  EXPECT_THROW(many.append_rows(std::span<const double>(rows).first(4)), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::io
