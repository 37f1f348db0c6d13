#include "app/bench.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>

#include "app/registry.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "tessera/version.hpp"

namespace tessera::app {
namespace {

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else
          out += c;
    }
  }
  return out;
}

std::string today() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%d}", fmt::gmtime(now));
}

}  // namespace

std::string bench_targets() {
  std::string out;
  for (const auto& name : builtin_registry().bench_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string format_table(const BenchReport& r) {
  std::string out = fmt::format("{}\n  device: {}\n", r.title, r.device);
  if (!r.limit.empty()) out += fmt::format("  limit:  {}\n", r.limit);
  out += fmt::format("  {:<28} {:>12} {:>12} {:>14} {:<18} {:>8}  {}\n", "case", "size", "time [ms]", "rate", "unit",
                     "of limit", "note");
  for (const auto& row : r.rows)
    out += fmt::format("  {:<28} {:>12} {:>12.4f} {:>14.4g} {:<18} {:>8}  {}\n", row.name, row.size, row.seconds * 1e3,
                       row.rate, row.unit, row.fraction > 0 ? fmt::format("{:.1f}%", 100 * row.fraction) : "-",
                       row.note);
  return out;
}

std::string to_json(const BenchReport& r, const BenchOptions& o, int ranks) {
  std::string out = "{\n";
  out += fmt::format("  \"title\": \"{}\",\n  \"target\": \"{}\",\n  \"device\": \"{}\",\n  \"limit\": \"{}\",\n",
                     json_escape(r.title), json_escape(o.target), json_escape(r.device), json_escape(r.limit));
  out += fmt::format("  \"ranks\": {},\n", ranks);
  out += fmt::format("  \"date\": \"{}\",\n  \"tessera_version\": \"{}\",\n  \"commit\": \"{}\",\n", today(), kVersion,
                     kGitCommit);
  out += "  \"rows\": [\n";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    out += fmt::format(
        "    {{\"name\": \"{}\", \"size\": \"{}\", \"seconds\": {:.9g}, \"rate\": {:.9g}, \"unit\": \"{}\", "
        "\"fraction\": {:.6g}, \"note\": \"{}\"}}{}\n",
        json_escape(row.name), json_escape(row.size), row.seconds, row.rate, json_escape(row.unit), row.fraction,
        json_escape(row.note), i + 1 < r.rows.size() ? "," : "");
  }
  out += "  ]\n}\n";
  return out;
}

int run_bench(comm::Context& ctx, const BenchOptions& options) {
  const BenchInfo* bench = builtin_registry().find_bench(options.target);
  if (!bench)
    throw InputError(fmt::format("unknown benchmark '{}' (available: {})", options.target, bench_targets()));
  const BenchReport report = bench->run(ctx, options);
  comm::agree(ctx, [&] {
    if (!ctx.is_root()) return;
    std::fputs(format_table(report).c_str(), stdout);
    std::fflush(stdout);
    if (!options.json.empty()) {
      std::ofstream out(options.json);
      out << to_json(report, options, ctx.size());
      if (!out) throw InputError(fmt::format("cannot write the benchmark JSON to '{}'", options.json));
      log::info("wrote {}", options.json);
    }
  });
  return 0;
}

}  // namespace tessera::app
