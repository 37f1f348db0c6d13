#include "app/profile_report.hpp"

#include <algorithm>

#include "core/log.hpp"
#include "core/profile.hpp"
#include "io/profile_file.hpp"
#include "io/published.hpp"

namespace tessera::app {
namespace {

std::string calls_text(const comm::Spread& c) {
  return c.min == c.max ? fmt::format("{:.0f}", c.max) : fmt::format("{:.0f}-{:.0f}", c.min, c.max);
}

std::string times_text(const comm::Spread& s) {
  return fmt::format("{:10.6f} {:10.6f} {:10.6f} {:>4}", s.min, s.mean, s.max, s.max_rank);
}

}  // namespace

std::string profile_table(const comm::MergedProfile& p) {
  std::vector<const comm::ProfileRow*> rows;
  for (const comm::ProfileRow& r : p.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const comm::ProfileRow* a, const comm::ProfileRow* b) {
    if (a->top_level != b->top_level) return a->top_level;
    return a->top_level ? a->inclusive.mean > b->inclusive.mean : a->exclusive.mean > b->exclusive.mean;
  });
  std::size_t width = 6;
  for (const comm::ProfileRow* r : rows) width = std::max(width, r->name.size() + 2);

  std::string out = fmt::format("profile over {} rank(s), wall time {:.6f} s (mean; max {:.6f} s on rank {})\n",
                                p.ranks, p.wall.mean, p.wall.max, p.wall.max_rank);
  out += fmt::format("{:<{}} {:>9}  {:^37}  {:^37} {:>7}\n", "", width, "", "inclusive s", "exclusive s", "");
  out += fmt::format("{:<{}} {:>9}  {:>10} {:>10} {:>10} {:>4}  {:>10} {:>10} {:>10} {:>4} {:>7}\n", "region", width,
                     "calls", "min", "mean", "max", "@max", "min", "mean", "max", "@max", "% wall");
  double top = 0;
  for (const comm::ProfileRow* r : rows) {
    const double percent = p.wall.mean > 0 ? 100.0 * r->inclusive.mean / p.wall.mean : 0.0;
    if (r->top_level) top += percent;
    out += fmt::format("{:<{}} {:>9}  {}  {} {:>7.2f}\n", (r->top_level ? "* " : "  ") + r->name, width,
                       calls_text(r->calls), times_text(r->inclusive), times_text(r->exclusive), percent);
  }
  out += fmt::format("* top level: together {:.2f}% of the wall time", top);
  return out;
}

void report_profile(comm::Context& ctx, const std::filesystem::path& dir, const io::Provenance& provenance) {
  profile::stop();
  const comm::MergedProfile merged = comm::merge_profile(ctx, profile::snapshot(), profile::wall_seconds());
  log::info("{}", profile_table(merged));
  io::log_published(io::write_profile_file(ctx, dir, merged, provenance));
}

}  // namespace tessera::app
