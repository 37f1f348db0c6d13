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
#include "solvers/bfs/text_slice.hpp"

namespace tessera::bfs {
namespace {

enum class Field : std::int64_t { pattern = 0, integer = 1, real = 2 };

// Splits a line at blanks into at most `max` tokens; returns how many there were in all.
int split(std::string_view line, std::string_view* tokens, int max) {
  int n = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (n < max) tokens[n] = line.substr(i, j - i);
    ++n;
    i = j;
  }
  return n;
}

bool parse_int(std::string_view t, std::int64_t& out) {
  const auto r = std::from_chars(t.data(), t.data() + t.size(), out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

bool parse_real(std::string_view t) {
  double x = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), x);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return s;
}

struct MatrixHeader {
  std::int64_t rows = 0, columns = 0, entries = 0;
  Field field = Field::pattern;
  bool symmetric = false;
  std::int64_t data_begin = 0;  // byte offset of the line after the size line
  std::int64_t size_line = 0;   // its line number
};

// Rank 0: the banner, comments and the size line.
MatrixHeader parse_header(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open the graph file '{}': {}", file, std::strerror(errno)));
  std::string line;
  if (!std::getline(in, line)) throw InputError(fmt::format("{}:1: empty file: expected a Matrix Market header", file));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::string_view tok[6];
  const int n = split(line, tok, 6);
  if (n < 1 || lower(tok[0]) != "%%matrixmarket")
    throw InputError(fmt::format("{}:1: not a Matrix Market file: the first line must start with %%MatrixMarket", file));
  if (n != 5 || lower(tok[1]) != "matrix")
    throw InputError(fmt::format(
        "{}:1: malformed Matrix Market header '{}': expected '%%MatrixMarket matrix coordinate <field> <symmetry>'",
        file, line));
  MatrixHeader h;
  const std::string format = lower(tok[2]), field = lower(tok[3]), symmetry = lower(tok[4]);
  if (format != "coordinate")
    throw InputError(fmt::format("{}:1: Matrix Market format '{}' is not supported: a graph needs 'coordinate'", file,
                                 tok[2]));
  if (field == "pattern") h.field = Field::pattern;
  else if (field == "integer") h.field = Field::integer;
  else if (field == "real") h.field = Field::real;
  else
    throw InputError(fmt::format("{}:1: Matrix Market field '{}' is not supported (pattern, integer or real)", file,
                                 tok[3]));
  if (symmetry == "general") h.symmetric = false;
  else if (symmetry == "symmetric" || symmetry == "skew-symmetric") h.symmetric = true;
  else
    throw InputError(fmt::format(
        "{}:1: Matrix Market symmetry '{}' is not supported (general, symmetric or skew-symmetric)", file, tok[4]));
  std::int64_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (blank(line) || trim_left(line).front() == '%') continue;
    std::string_view s[4];
    if (split(line, s, 4) != 3 || !parse_int(s[0], h.rows) || !parse_int(s[1], h.columns) ||
        !parse_int(s[2], h.entries) || h.rows < 0 || h.columns < 0 || h.entries < 0)
      throw InputError(fmt::format("{}:{}: malformed size line '{}': expected 'rows columns entries' (three counts)",
                                   file, number, line));
    if (h.rows != h.columns)
      throw InputError(
          fmt::format("{}:{}: the matrix is {} x {}; a graph needs a square matrix", file, number, h.rows, h.columns));
    h.size_line = number;
    const auto at = in.tellg();
    h.data_begin = at < 0 ? static_cast<std::int64_t>(std::filesystem::file_size(path)) : static_cast<std::int64_t>(at);
    return h;
  }
  throw InputError(fmt::format("{}:{}: the file ends before the size line 'rows columns entries'", file, number));
}

// Line number of this rank's k-th entry (for the "too many entries" message).
std::int64_t line_of_entry(const TextSlice& slice, std::int64_t k) {
  LineCursor c(slice);
  std::int64_t seen = 0;
  while (c.next()) {
    const std::string_view t = trim_left(c.line());
    if (t.empty() || t.front() == '%') continue;
    if (seen++ == k) return c.number();
  }
  return c.number();
}

// A file's graph is checked against the host memory of the ranks before its rows are built.
void require_graph_memory(comm::Context& ctx, std::int64_t vertices, std::int64_t edges, const std::string& where) {
  const double n = static_cast<double>(vertices), m = static_cast<double>(edges);
  comm::require_memory(ctx, false, [=](double ranks) { return graph_memory(n, m, ranks, false); }, where);
}

}  // namespace

FileGraph read_matrix_market(comm::Context& ctx, const std::filesystem::path& path) {
  const std::string file = path.string();
  MatrixHeader h;
  io::agree_input(ctx, [&] {
    if (ctx.is_root()) h = parse_header(path);
  });
  std::int64_t wire[7] = {h.rows, h.columns, h.entries, static_cast<std::int64_t>(h.field), h.symmetric ? 1 : 0,
                          h.data_begin, h.size_line};
  comm::broadcast(ctx, std::span<std::int64_t>(wire, 7));
  h = {wire[0], wire[1], wire[2], static_cast<Field>(wire[3]), wire[4] != 0, wire[5], wire[6]};

  const TextSlice slice = read_text_slice(ctx, path, h.data_begin, h.size_line + 1);
  require_graph_memory(ctx, h.rows, h.entries, fmt::format("{}: {} rows and {} entries in the header", file, h.rows, h.entries));
  FileGraph g;
  g.vertices = h.rows;
  io::agree_input(ctx, [&] {
    LineCursor c(slice);
    const int want = h.field == Field::pattern ? 2 : 3;
    const char* layout = h.field == Field::pattern ? "row column" : "row column value";
    while (c.next()) {
      const std::string_view t = trim_left(c.line());
      if (t.empty() || t.front() == '%') continue;
      std::string_view tok[4];
      const int n = split(t, tok, 4);
      std::int64_t i = 0, j = 0;
      if (n != want)
        throw InputError(fmt::format("{}:{}: expected {} fields ({}), found {}", file, c.number(), want, layout, n));
      if (!parse_int(tok[0], i) || !parse_int(tok[1], j))
        throw InputError(fmt::format("{}:{}: malformed entry '{}': indices must be integers", file, c.number(), t));
      if (want == 3) {
        std::int64_t iv = 0;
        const bool ok = h.field == Field::integer ? parse_int(tok[2], iv) : parse_real(tok[2]);
        if (!ok)
          throw InputError(fmt::format("{}:{}: malformed value '{}' for a Matrix Market '{}' matrix", file, c.number(),
                                       tok[2], h.field == Field::integer ? "integer" : "real"));
      }
      if (i < 1 || i > h.rows)
        throw InputError(fmt::format("{}:{}: row index {} is outside [1, {}]", file, c.number(), i, h.rows));
      if (j < 1 || j > h.columns)
        throw InputError(fmt::format("{}:{}: column index {} is outside [1, {}]", file, c.number(), j, h.columns));
      g.edges.push_back({i - 1, j - 1});
    }
  });
  const auto local = static_cast<std::int64_t>(g.edges.size());
  const std::int64_t first = comm::exscan(ctx, local);
  const std::int64_t total = comm::allreduce(ctx, local, comm::Op::sum);
  io::agree_input(ctx, [&] {
    if (total > h.entries && first <= h.entries && h.entries < first + local)
      throw InputError(fmt::format("{}:{}: more entries than the {} announced on line {}", file,
                                   line_of_entry(slice, h.entries - first), h.entries, h.size_line));
    if (total < h.entries && ctx.is_root())
      throw InputError(fmt::format("{}: the file ends after {} entries, but line {} announces {}", file, total,
                                   h.size_line, h.entries));
  });
  g.description = fmt::format("Matrix Market {} ({}, {}): {} vertices, {} entries", file,
                              h.field == Field::pattern ? "pattern" : h.field == Field::integer ? "integer" : "real",
                              h.symmetric ? "symmetric" : "general", h.rows, h.entries);
  return g;
}

FileGraph read_edge_list(comm::Context& ctx, const std::filesystem::path& path, int index_base, std::int64_t vertices) {
  const std::string file = path.string();
  const TextSlice slice = read_text_slice(ctx, path, 0, 1);
  FileGraph g;
  std::int64_t largest = -1;
  io::agree_input(ctx, [&] {
    LineCursor c(slice);
    while (c.next()) {
      const std::string_view t = trim_left(c.line());
      if (t.empty() || t.front() == '#' || t.front() == '%') continue;
      std::string_view tok[2];
      const int n = split(t, tok, 2);
      std::int64_t u = 0, v = 0;
      if (n < 2)
        throw InputError(fmt::format("{}:{}: expected an edge 'u v', found '{}'", file, c.number(), t));
      if (!parse_int(tok[0], u) || !parse_int(tok[1], v))
        throw InputError(fmt::format("{}:{}: malformed edge '{}': vertex ids must be integers", file, c.number(), t));
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
