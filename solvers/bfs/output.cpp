#include "solvers/bfs/output.hpp"

#include <fmt/format.h>

#include "comm/collectives.hpp"
#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"

namespace tessera::bfs {
namespace {

void write_graph_attributes(const io::Group& root, const GraphAttributes& a) {
  const io::Group g = root.require_group("graph");
  io::write_attribute(g, "description", a.description);
  io::write_attribute(g, "backend", a.backend);
  io::write_attribute(g, "algorithm", a.algorithm);
  io::write_attribute(g, "vertices", a.vertices);
  io::write_attribute(g, "input_edges", a.input_edges);
  io::write_attribute(g, "self_loops", a.self_loops);
  io::write_attribute(g, "directed_edges", a.directed_edges);
  io::write_attribute(g, "ranks", static_cast<std::int64_t>(a.ranks));
}

}  // namespace

std::vector<io::Column> search_columns() {
  return {{"step", "1"},    {"root", "1"},  {"seconds", "s"},         {"input_edges", "1"},      {"teps", "TEPS"},
          {"reached", "1"}, {"depth", "1"}, {"top_down_levels", "1"}, {"bottom_up_levels", "1"}, {"validated", "1"}};
}

void BfsOutput::create(const GraphAttributes& graph) {
  io::OutputFile file(ctx_, path_);
  const io::Group& root = file.root();
  io::write_provenance(root, provenance_);
  write_graph_attributes(root, graph);
  io::TimeSeries::create(root, "searches", search_columns());
  file.commit();
}

void BfsOutput::reopen(const GraphAttributes& graph, std::int64_t step) {
  bool exists = false;
  if (ctx_.is_root()) exists = std::filesystem::exists(path_);
  exists = comm::broadcast_value(ctx_, exists ? 1 : 0) != 0;
  if (!exists) {
    create(graph);
    return;
  }
  // Every change is made to a copy, verified, then renamed over the file (io/output_file.hpp).
  io::OutputFile file = io::OutputFile::modify(ctx_, path_);
  io::write_provenance(file.root(), provenance_);  // this run's deck and version from here on
  io::TimeSeries::open_or_create(file.root(), "searches", search_columns());
  file.commit();
  // Rows of later searches stay until this run rewrites them: a failed restart loses none.
  log_.resume("searches", "step", static_cast<double>(step));
}

void BfsOutput::append(std::int64_t step, const SearchResult& r, bool validated, std::optional<BfsTree> tree,
                       std::int64_t begin, std::int64_t n) {
  log_.add_row("searches", {static_cast<double>(step), static_cast<double>(r.root), r.seconds,
                            static_cast<double>(r.input_edges), r.teps(), static_cast<double>(r.reached),
                            static_cast<double>(r.depth), static_cast<double>(r.top_down_levels),
                            static_cast<double>(r.bottom_up_levels), validated ? 1.0 : 0.0});
  if (tree) {
    const std::size_t bytes = tree->parent.size() * sizeof(std::int64_t) + tree->level.size() * sizeof(std::int32_t);
    log_.add_change(
        [t = std::move(*tree), step, r, begin, n](const io::Group& root) {
          // An interrupted run's tree of this search (kept over a restart until now) is replaced.
          const std::string name = fmt::format("trees/{:05d}", step - 1);
          if (root.exists(name)) root.unlink(name);
          const io::Group g = root.require_group(name);
          io::write_units(io::write_1d_checked<std::int64_t>(g, "parent", t.parent, begin, n), io::kDimensionless);
          io::write_units(io::write_1d_checked<std::int32_t>(g, "level", t.level, begin, n), io::kDimensionless);
          io::write_attribute(g, "root", r.root);
          io::write_attribute(g, "seconds", r.seconds);
          io::write_attribute(g, "teps", r.teps());
        },
        bytes);
  }
  log_.publish_if_due();
}

void BfsOutput::write_statistics(const std::vector<SearchResult>& results) {
  std::vector<double> teps, time, nedge;
  for (const auto& r : results) {
    teps.push_back(r.teps());
    time.push_back(r.seconds);
    nedge.push_back(static_cast<double>(r.input_edges));
  }
  const std::int64_t nbfs = static_cast<std::int64_t>(results.size());
  log_.add_change(
      [nbfs, t = statistic_values(summarize(teps)), s = statistic_values(summarize(time)),
       e = statistic_values(summarize(nedge))](const io::Group& root) {
        const io::Group g = root.require_group("statistics");
        io::write_attribute(g, "nbfs", nbfs);
        const auto names = statistic_names();
        for (std::size_t i = 0; i < names.size(); ++i) {
          io::write_attribute(g, names[i] + "_TEPS", t[i]);
          io::write_attribute(g, names[i] + "_time", s[i]);
          io::write_attribute(g, names[i] + "_nedge", e[i]);
        }
      },
      0);
  log_.publish();
}

}  // namespace tessera::bfs
