#include "io/profile_file.hpp"

#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"

namespace tessera::io {

const std::vector<std::string>& profile_columns() {
  static const std::vector<std::string> c{
      "calls_min",          "calls_mean",     "calls_max",      "inclusive_min",  "inclusive_mean",
      "inclusive_max",      "inclusive_max_rank", "exclusive_min", "exclusive_mean", "exclusive_max",
      "exclusive_max_rank", "percent_of_wall", "top_level"};
  return c;
}

const std::vector<std::string>& profile_units() {
  static const std::vector<std::string> u{"1", "1", "1", "s", "s", "s", "1", "s", "s", "s", "1", "%", "1"};
  return u;
}

std::vector<double> profile_row(const comm::ProfileRow& r, double wall_mean) {
  return {r.calls.min,
          r.calls.mean,
          r.calls.max,
          r.inclusive.min,
          r.inclusive.mean,
          r.inclusive.max,
          static_cast<double>(r.inclusive.max_rank),
          r.exclusive.min,
          r.exclusive.mean,
          r.exclusive.max,
          static_cast<double>(r.exclusive.max_rank),
          wall_mean > 0 ? 100.0 * r.inclusive.mean / wall_mean : 0.0,
          r.top_level ? 1.0 : 0.0};
}

std::filesystem::path write_profile_file(comm::Context& ctx, const std::filesystem::path& dir,
                                         const comm::MergedProfile& profile, const Provenance& provenance) {
  const std::int64_t ncols = static_cast<std::int64_t>(profile_columns().size());
  const std::int64_t nrows = static_cast<std::int64_t>(profile.rows.size());
  // Every rank holds the same merged table; rank 0 writes it, the others take part empty.
  std::vector<double> table, wall;
  std::vector<std::string> names;
  for (const comm::ProfileRow& r : profile.rows) {
    names.push_back(r.name);
    if (ctx.is_root()) {
      const std::vector<double> row = profile_row(r, profile.wall.mean);
      table.insert(table.end(), row.begin(), row.end());
    }
  }
  if (ctx.is_root()) wall = {profile.wall.min, profile.wall.mean, profile.wall.max};

  OutputFile file(ctx, dir / "profile.h5");
  {
    const Group& root = file.root();
    write_provenance(root, provenance);
    const Dataset regions = write_rows_checked<double>(root, "regions", table, ncols, 0, nrows);
    write_vlen_attribute(regions, "columns", profile_columns());
    write_vlen_attribute(regions, "units", profile_units());
    write_vlen_attribute(regions, "names", names);
    const Dataset w = write_1d_checked<double>(root, "wall_time", wall, 0, 3);
    write_units(w, "s");
    write_vlen_attribute(w, "statistics", std::vector<std::string>{"min", "mean", "max"});
    write_attribute(w, "max_rank", static_cast<std::int64_t>(profile.wall.max_rank));
  }
  return file.commit();
}

}  // namespace tessera::io
