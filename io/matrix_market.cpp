#include "io/matrix_market.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <span>

#include "comm/collectives.hpp"
#include "core/error.hpp"
#include "io/agree.hpp"
#include "io/quoted_text.hpp"
#include "io/text_slice.hpp"

namespace tessera::io {
namespace {

bool parse_int(std::string_view t, std::int64_t& out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

bool parse_real(std::string_view t, double& out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return s;
}

// Rank 0: the banner, comments and the size line.
MatrixMarketHeader parse_header(const std::filesystem::path& path, const MatrixMarketOptions& o) {
  const std::string file = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("cannot read {} '{}': it is a directory", o.what, file));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open {} '{}': {}", o.what, file, std::strerror(errno)));
  std::string line;
  if (!std::getline(in, line)) throw InputError(fmt::format("{}:1: empty file: expected a Matrix Market header", file));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::string_view tok[6];
  const int n = split_blanks(line, tok, 6);
  if (n < 1 || lower(tok[0]) != "%%matrixmarket")
    throw InputError(fmt::format("{}:1: not a Matrix Market file: the first line must start with %%MatrixMarket", file));
  if (n != 5 || lower(tok[1]) != "matrix")
    throw InputError(fmt::format(
        "{}:1: malformed Matrix Market header '{}': expected '%%MatrixMarket matrix coordinate <field> <symmetry>'",
        file, quoted_text(line)));
  MatrixMarketHeader h;
  const std::string format = lower(tok[2]), field = lower(tok[3]), symmetry = lower(tok[4]);
  if (format != "coordinate")
    throw InputError(fmt::format("{}:1: Matrix Market format '{}' is not supported: only sparse 'coordinate' files",
                                 file, quoted_text(tok[2])));
  if (field == "pattern") h.field = MatrixField::pattern;
  else if (field == "integer") h.field = MatrixField::integer;
  else if (field == "real") h.field = MatrixField::real;
  else
    throw InputError(fmt::format("{}:1: Matrix Market field '{}' is not supported (real, integer or pattern)", file,
                                 quoted_text(tok[3])));
  if (symmetry == "general") h.symmetry = MatrixSymmetry::general;
  else if (symmetry == "symmetric") h.symmetry = MatrixSymmetry::symmetric;
  else if (symmetry == "skew-symmetric") h.symmetry = MatrixSymmetry::skew_symmetric;
  else
    throw InputError(fmt::format(
        "{}:1: Matrix Market symmetry '{}' is not supported (general, symmetric or skew-symmetric)", file,
        quoted_text(tok[4])));
  std::int64_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string_view t = trim_left(line);
    if (t.empty() || t.front() == '%') continue;
    std::string_view s[4];
    if (split_blanks(t, s, 4) != 3 || !parse_int(s[0], h.rows) || !parse_int(s[1], h.columns) ||
        !parse_int(s[2], h.entries) || h.rows < 0 || h.columns < 0 || h.entries < 0)
      throw InputError(fmt::format("{}:{}: malformed size line '{}': expected 'rows columns entries' (three counts)",
                                   file, number, quoted_text(line)));
    if (o.require_square && h.rows != h.columns)
      throw InputError(fmt::format("{}:{}: the matrix is {} x {}; {}", file, number, h.rows, h.columns,
                                   o.square_reason));
    if (h.symmetry != MatrixSymmetry::general && h.rows != h.columns)
      throw InputError(fmt::format("{}:{}: a {} matrix must be square, but the size line says {} x {}", file, number,
                                   to_string(h.symmetry), h.rows, h.columns));
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

}  // namespace

std::string_view to_string(MatrixField f) {
  switch (f) {
    case MatrixField::pattern: return "pattern";
    case MatrixField::integer: return "integer";
    default: return "real";
  }
}

std::string_view to_string(MatrixSymmetry s) {
  switch (s) {
    case MatrixSymmetry::symmetric: return "symmetric";
    case MatrixSymmetry::skew_symmetric: return "skew-symmetric";
    default: return "general";
  }
}

MatrixMarketEntries read_matrix_market(comm::Context& ctx, const std::filesystem::path& path,
                                       const MatrixMarketOptions& options) {
  const std::string file = path.string();
  MatrixMarketHeader h;
  agree_input(ctx, [&] {
    if (ctx.is_root()) h = parse_header(path, options);
  });
  std::int64_t wire[7] = {h.rows, h.columns, h.entries, static_cast<std::int64_t>(h.field),
                          static_cast<std::int64_t>(h.symmetry), h.data_begin, h.size_line};
  comm::broadcast(ctx, std::span<std::int64_t>(wire, 7));
  h = {wire[0], wire[1], wire[2], static_cast<MatrixField>(wire[3]), static_cast<MatrixSymmetry>(wire[4]), wire[5],
       wire[6]};
  if (options.on_header) agree_input(ctx, [&] { options.on_header(h); });

  const TextSlice slice = read_text_slice(ctx, path, h.data_begin, h.size_line + 1, options.what);
  MatrixMarketEntries out;
  out.header = h;
  agree_input(ctx, [&] {
    LineCursor c(slice);
    const int want = h.field == MatrixField::pattern ? 2 : 3;
    const char* layout = h.field == MatrixField::pattern ? "row column" : "row column value";
    while (c.next()) {
      const std::string_view t = trim_left(c.line());
      if (t.empty() || t.front() == '%') continue;
      std::string_view tok[4];
      const int n = split_blanks(t, tok, 4);
      std::int64_t i = 0, j = 0;
      double v = 1.0;
      if (n != want)
        throw InputError(fmt::format("{}:{}: expected {} fields ({}), found {}", file, c.number(), want, layout, n));
      if (!parse_int(tok[0], i) || !parse_int(tok[1], j))
        throw InputError(fmt::format("{}:{}: malformed entry '{}': indices must be integers", file, c.number(),
                                     quoted_text(t)));
      if (want == 3) {
        std::int64_t iv = 0;
        bool ok = false;
        if (h.field == MatrixField::integer) {
          ok = parse_int(tok[2], iv);
          v = static_cast<double>(iv);
        } else {
          ok = parse_real(tok[2], v) && std::isfinite(v);
        }
        if (!ok)
          throw InputError(fmt::format("{}:{}: malformed value '{}' for a Matrix Market '{}' matrix{}", file,
                                       c.number(), quoted_text(tok[2]), to_string(h.field),
                                       h.field == MatrixField::real ? " (a finite number)" : ""));
      }
      if (i < 1 || i > h.rows)
        throw InputError(fmt::format("{}:{}: row index {} is outside [1, {}]", file, c.number(), i, h.rows));
      if (j < 1 || j > h.columns)
        throw InputError(fmt::format("{}:{}: column index {} is outside [1, {}]", file, c.number(), j, h.columns));
      // A symmetric file stores the lower triangle only; its caller mirrors each entry, so an
      // entry above the diagonal would be added to its mirror (a silently wrong matrix).
      if (h.symmetry != MatrixSymmetry::general && j > i)
        throw InputError(fmt::format("{}:{}: entry ({}, {}) lies above the diagonal, but a {} Matrix Market file "
                                     "stores only the lower triangle (row >= column; each entry stands for its "
                                     "mirror too): list it once as ({}, {}), or declare the matrix 'general'",
                                     file, c.number(), i, j, to_string(h.symmetry), j, i));
      if (h.symmetry == MatrixSymmetry::skew_symmetric && i == j && v != 0.0)
        throw InputError(fmt::format("{}:{}: diagonal entry ({}, {}) = {} in a skew-symmetric matrix, whose diagonal "
                                     "is zero (the file lists only the entries below it)",
                                     file, c.number(), i, j, v));
      out.row.push_back(i - 1);
      out.col.push_back(j - 1);
      out.value.push_back(v);
    }
  });
  const auto local = static_cast<std::int64_t>(out.row.size());
  const std::int64_t first = comm::exscan(ctx, local);
  const std::int64_t total = comm::allreduce(ctx, local, comm::Op::sum);
  agree_input(ctx, [&] {
    if (total > h.entries && first <= h.entries && h.entries < first + local)
      throw InputError(fmt::format("{}:{}: more entries than the {} announced on line {}", file,
                                   line_of_entry(slice, h.entries - first), h.entries, h.size_line));
    if (total < h.entries && ctx.is_root())
      throw InputError(fmt::format("{}: the file ends after {} entries, but line {} announces {}", file, total,
                                   h.size_line, h.entries));
  });
  out.first_entry = first;
  out.description = fmt::format("Matrix Market {} ({}, {}): {} x {}, {} entries", file, to_string(h.field),
                                to_string(h.symmetry), h.rows, h.columns, h.entries);
  return out;
}

}  // namespace tessera::io
