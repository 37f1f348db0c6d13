#include "solvers/bfs/graph_spec.hpp"

#include <fmt/format.h>


#include <cmath>
#include <filesystem>
#include <thread>

#include "comm/collectives.hpp"
#include "comm/host_threads.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/graph_file.hpp"

namespace tessera::bfs {

void add_graph_schema(deck::Schema& s) {
  s.table("bfs.graph", "the graph to search: a Graph500 Kronecker graph or a file (always undirected)")
      .choice("source", "kronecker: generated; matrix_market or edge_list: read from `file`",
              {"kronecker", "matrix_market", "edge_list"})
      .default_value("kronecker")
      .integer("scale", "Kronecker: 2^scale vertices").min(1).max(34).default_value(16)
      .integer("edgefactor", "Kronecker: edgefactor * 2^scale input edges").min(1).max(1024).default_value(16)
      .integer("seed", "Kronecker: generator seed (the graph is the same for any number of ranks)").min(0)
      .default_value(1)
      .float_array("initiator", "Kronecker initiator A, B, C (D = 1 - A - B - C)").length(3).greater_than(0)
      .less_than(1).default_value({0.57, 0.19, 0.19})
      .string("file", "matrix_market / edge_list: path of the graph file").file().default_value("")
      .integer("index_base", "edge_list: the smallest vertex id (0 for SNAP files)").min(0).max(1).default_value(0)
      .integer("vertices", "edge_list: number of vertices (0: the largest id + 1)").min(0).default_value(0);
}

GraphSpec graph_spec_from_deck(const deck::Config& deck) {
  GraphSpec g;
  const std::string& source = deck.get_string("bfs.graph.source");
  g.source = source == "kronecker"       ? GraphSource::kronecker
             : source == "matrix_market" ? GraphSource::matrix_market
                                         : GraphSource::edge_list;
  g.kronecker.scale = static_cast<int>(deck.get_int("bfs.graph.scale"));
  g.kronecker.edgefactor = deck.get_int("bfs.graph.edgefactor");
  g.kronecker.seed = static_cast<std::uint64_t>(deck.get_int("bfs.graph.seed"));
  const auto& abc = deck.get_double_array("bfs.graph.initiator");
  g.kronecker.a = abc[0];
  g.kronecker.b = abc[1];
  g.kronecker.c = abc[2];
  if (abc[0] + abc[1] + abc[2] >= 1.0)
    throw InputError(fmt::format("{}: bfs.graph.initiator A + B + C = {} leaves no probability for D (must be < 1)",
                                 deck.where("bfs.graph.initiator"), abc[0] + abc[1] + abc[2]));
  g.file = deck.get_string("bfs.graph.file");
  g.index_base = static_cast<int>(deck.get_int("bfs.graph.index_base"));
  g.vertices = deck.get_int("bfs.graph.vertices");
  if (g.source != GraphSource::kronecker) {
    if (g.file.empty())
      throw InputError(fmt::format("{}: bfs.graph.source = \"{}\" needs bfs.graph.file", deck.where("bfs.graph.source"),
                                   source));
    if (!std::filesystem::exists(g.file))
      throw InputError(fmt::format("{}: the graph file '{}' does not exist", deck.where("bfs.graph.file"), g.file));
    if (!std::filesystem::is_regular_file(g.file))
      throw InputError(fmt::format("{}: the graph file '{}' is not a regular file (a directory?)",
                                   deck.where("bfs.graph.file"), g.file));
  }
  return g;
}

namespace {

// The build runs on the host with the rank's OpenMP threads (comm/host_threads.hpp; the run log
// says how many). Warn where the launcher left a rank one core of many (Open MPI binds each rank
// to one core by default for up to two ranks: the build then takes minutes at scale 26).
void use_threads_per_rank(comm::Context& ctx) {
  const int fewest = comm::allreduce(ctx, comm::cpu_threads_per_rank(ctx), comm::Op::min);
  const int host = static_cast<int>(std::thread::hardware_concurrency());
  if (fewest == 1 && host >= 2 * ctx.local_size())
    log::warn("graph construction: a rank has one OpenMP thread on a host of {} cores; the launcher probably bound "
              "it to one core (Open MPI: add --bind-to none, or --map-by slot:PE=<cores per rank>)",
              host);
}

}  // namespace

BuiltGraph build_graph_from_spec(comm::Context& ctx, const GraphSpec& spec) {
  use_threads_per_rank(ctx);
  BuiltGraph out;
  HostTimer timer;
  std::unique_ptr<EdgeSource> source;
  if (spec.source == GraphSource::kronecker) {
    source = std::make_unique<KroneckerEdgeSource>(spec.kronecker, ctx.rank(), ctx.size());
    out.description = fmt::format("Kronecker scale {} edgefactor {} seed {} (A={}, B={}, C={})", spec.kronecker.scale,
                                  spec.kronecker.edgefactor, spec.kronecker.seed, spec.kronecker.a, spec.kronecker.b,
                                  spec.kronecker.c);
  } else {
    FileGraph file = spec.source == GraphSource::matrix_market
                         ? read_matrix_market(ctx, spec.file)
                         : read_edge_list(ctx, spec.file, spec.index_base, spec.vertices);
    if (file.vertices < 1) throw InputError(fmt::format("the graph file '{}' has no vertices", spec.file));
    out.description = file.description;
    source = std::make_unique<VectorEdgeSource>(file.vertices, std::move(file.edges));
  }
  out.read_seconds = comm::allreduce(ctx, timer.seconds(), comm::Op::max);
  timer.reset();
  out.graph = build_graph(ctx, *source);
  out.construction_seconds = comm::allreduce(ctx, timer.seconds(), comm::Op::max);
  return out;
}

}  // namespace tessera::bfs
