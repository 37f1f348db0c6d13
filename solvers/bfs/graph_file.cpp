#include "solvers/bfs/graph_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <string_view>

#include "comm/collectives.hpp"
#include "core/error.hpp"
#include "io/agree.hpp"
#include "solvers/bfs/graph.hpp"
#include "io/matrix_market.hpp"
#include "io/quoted_text.hpp"
#include "io/text_slice.hpp"

namespace tessera::bfs {
namespace {

bool parse_int(std::string_view t, std::int64_t& out) {
  const auto r = std::from_chars(t.data(), t.data() + t.size(), out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return s;
}

// A file's graph is checked against the host memory of the ranks before its rows are built.
void require_graph_memory(comm::Context& ctx, std::int64_t vertices, std::int64_t edges, const std::string& where) {
  const double n = static_cast<double>(vertices), m = static_cast<double>(edges);
  comm::require_memory(ctx, false, [=](double ranks) { return graph_memory(n, m, ranks, false); }, where);
}

}  // namespace

FileGraph read_matrix_market(comm::Context& ctx, const std::filesystem::path& path) {
  const std::string file = path.string();
  io::MatrixMarketOptions o;
  o.what = "the graph file";
  o.require_square = true;
  o.square_reason = "a graph's adjacency matrix must be square";
  o.on_header = [&](const io::MatrixMarketHeader& h) {
    require_graph_memory(ctx, h.rows, h.entries,
                         fmt::format("{}: {} rows and {} entries in the header", file, h.rows, h.entries));
  };
  io::MatrixMarketEntries m = io::read_matrix_market(ctx, path, o);
  // Every entry is one input edge; a symmetric file's triangle already means both directions
  // (the graph is undirected), and values are checked by the reader and ignored here.
  FileGraph g;
  g.vertices = m.header.rows;
  g.edges.reserve(m.row.size());
  for (std::size_t k = 0; k < m.row.size(); ++k) g.edges.push_back({m.row[k], m.col[k]});
  g.description = fmt::format("Matrix Market {} ({}, {}): {} vertices, {} entries", file,
                              io::to_string(m.header.field), io::to_string(m.header.symmetry), m.header.rows,
                              m.header.entries);
  return g;
}

FileGraph read_edge_list(comm::Context& ctx, const std::filesystem::path& path, int index_base, std::int64_t vertices) {
  const std::string file = path.string();
  const io::TextSlice slice = io::read_text_slice(ctx, path, 0, 1, "the graph file");
  FileGraph g;
  std::int64_t largest = -1;
  io::agree_input(ctx, [&] {
    io::LineCursor c(slice);
    while (c.next()) {
      const std::string_view t = trim_left(c.line());
      if (t.empty() || t.front() == '#' || t.front() == '%') continue;
      std::string_view tok[2];
      const int n = io::split_blanks(t, tok, 2);
      std::int64_t u = 0, v = 0;
      if (n < 2)
        throw InputError(fmt::format("{}:{}: expected an edge 'u v', found '{}'", file, c.number(),
                                     io::quoted_text(t)));
      if (!parse_int(tok[0], u) || !parse_int(tok[1], v))
        throw InputError(fmt::format("{}:{}: malformed edge '{}': vertex ids must be integers", file, c.number(),
                                     io::quoted_text(t)));
      for (std::int64_t id : {u, v}) {
        if (id < index_base)
          throw InputError(fmt::format("{}:{}: vertex id {} is below the index base {}", file, c.number(), id,
                                       index_base));
        if (vertices > 0 && id - index_base >= vertices)
          throw InputError(fmt::format("{}:{}: vertex id {} is outside [{}, {}] ({} vertices)", file, c.number(), id,
                                       index_base, vertices - 1 + index_base, vertices));
      }
      g.edges.push_back({u - index_base, v - index_base});
      largest = std::max({largest, u - index_base, v - index_base});
    }
  });
  g.vertices = vertices > 0 ? vertices : comm::allreduce(ctx, largest, comm::Op::max) + 1;
  const std::int64_t total = comm::allreduce(ctx, static_cast<std::int64_t>(g.edges.size()), comm::Op::sum);
  require_graph_memory(ctx, g.vertices, total,
                       vertices > 0 ? fmt::format("{}: {} vertices", file, vertices)
                                    : fmt::format("{}: the largest vertex id, {}, means {} vertices", file,
                                                  g.vertices - 1 + index_base, g.vertices));
  g.description = fmt::format("edge list {}: {} vertices, {} edges", file, g.vertices, total);
  return g;
}

}  // namespace tessera::bfs
