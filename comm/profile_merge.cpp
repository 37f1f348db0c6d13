#include "comm/profile_merge.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"

namespace tessera::comm {
namespace {

// One name per line: region names hold no newlines (they are identifiers like "fdtd.halo").
std::string join_lines(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += n + '\n';
  return text;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The sorted union of every rank's region names, on every rank.
std::vector<std::string> agreed_names(Context& ctx, const std::vector<profile::Stat>& mine) {
  std::vector<std::string> names;
  for (const profile::Stat& s : mine) names.push_back(s.name);
  const std::vector<std::string> texts = gather_text(ctx, join_lines(names));
  std::string all;
  if (ctx.is_root()) {
    std::set<std::string> u;
    for (const std::string& t : texts)
      for (std::string& n : split_lines(t)) u.insert(std::move(n));
    all = join_lines({u.begin(), u.end()});
  }
  broadcast(ctx, all);
  return split_lines(all);
}

constexpr int kFields = 4;  // calls, inclusive, exclusive, top_level

}  // namespace

Spread spread_of(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  s.min = s.max = values[0];
  double sum = 0;
  for (std::size_t r = 0; r < values.size(); ++r) {
    sum += values[r];
    s.min = std::min(s.min, values[r]);
    if (values[r] > s.max) {
      s.max = values[r];
      s.max_rank = static_cast<int>(r);
    }
  }
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

MergedProfile merge_profile(Context& ctx, const std::vector<profile::Stat>& mine, double wall_seconds) {
  const std::vector<std::string> names = agreed_names(ctx, mine);
  const std::size_t n = names.size();

  // This rank's row, aligned to the agreed names: zeros where it never entered a region.
  const std::size_t width = 1 + kFields * n;
  std::vector<double> row(width, 0.0);
  row[0] = wall_seconds;
  for (const profile::Stat& s : mine) {
    const auto it = std::lower_bound(names.begin(), names.end(), s.name);
    const std::size_t i = static_cast<std::size_t>(it - names.begin());
    double* f = &row[1 + kFields * i];
    f[0] = static_cast<double>(s.calls);
    f[1] = s.inclusive;
    f[2] = s.exclusive;
    f[3] = s.top_level ? 1.0 : 0.0;
  }

  const int p = ctx.size();
  std::vector<double> all(width * static_cast<std::size_t>(p));
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Iallgather(row.data(), static_cast<int>(width), MPI_DOUBLE, all.data(),
                                   static_cast<int>(width), MPI_DOUBLE, ctx.world(), &req));
  wait(ctx, req);

  auto column = [&](std::size_t k) {
    std::vector<double> v(static_cast<std::size_t>(p));
    for (std::size_t r = 0; r < v.size(); ++r) v[r] = all[r * width + k];
    return v;
  };
  MergedProfile out;
  out.ranks = p;
  out.wall = spread_of(column(0));
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t base = 1 + kFields * i;
    ProfileRow r;
    r.name = names[i];
    r.calls = spread_of(column(base));
    r.inclusive = spread_of(column(base + 1));
    r.exclusive = spread_of(column(base + 2));
    r.top_level = spread_of(column(base + 3)).max > 0;
    out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace tessera::comm
