#include "io/text_slice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "comm/collectives.hpp"
#include "core/error.hpp"
#include "core/partition.hpp"
#include "io/agree.hpp"

namespace tessera::io {
namespace {

std::string read_bytes(std::ifstream& in, const std::filesystem::path& path, std::int64_t at, std::int64_t count) {
  std::string out(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)), '\0');
  if (count <= 0) return out;
  in.clear();
  in.seekg(at);
  in.read(out.data(), count);
  if (in.gcount() != count)
    throw InputError(fmt::format("cannot read {} bytes at offset {} of '{}': {}", count, at, path.string(),
                                 std::strerror(errno)));
  return out;
}

}  // namespace

TextSlice read_text_slice(comm::Context& ctx, const std::filesystem::path& path, std::int64_t data_begin,
                          std::int64_t data_first_line, std::string_view what) {
  TextSlice slice;
  std::int64_t newlines_in_range = 0, first_line_offset = 0;
  io::agree_input(ctx, [&] {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw InputError(fmt::format("cannot read {} '{}': it is a directory", what, path.string()));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("cannot open {} '{}': {}", what, path.string(), std::strerror(errno)));
    const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
    const Range r = block_range(std::max<std::int64_t>(size - data_begin, 0), ctx.size(), ctx.rank());
    const std::int64_t start = data_begin + r.begin, end = start + r.count;
    // The raw range, one byte before it (was the previous byte a newline?) and enough after it
    // to finish the last line.
    const std::int64_t lead = start > data_begin ? 1 : 0;
    std::string raw = read_bytes(in, path, start - lead, end - start + lead);
    newlines_in_range = std::count(raw.begin() + lead, raw.end(), '\n');
    // The first line starting at or after `start`.
    std::size_t from = 0;
    if (lead) {
      const std::size_t nl = raw.find('\n');
      from = nl == std::string::npos ? raw.size() : nl + 1;
    }
    first_line_offset = (lead && from > 1) ? 1 : 0;  // a newline inside our range precedes our first line
    if (from >= raw.size()) {
      slice.text.clear();
      return;
    }
    slice.text.assign(raw, from, std::string::npos);
    // Finish the last line (it may run past `end`).
    if (slice.text.back() != '\n') {
      std::int64_t at = end;
      while (at < size) {
        const std::int64_t n = std::min<std::int64_t>(4096, size - at);
        const std::string more = read_bytes(in, path, at, n);
        const std::size_t nl = more.find('\n');
        if (nl != std::string::npos) {
          slice.text.append(more, 0, nl + 1);
          break;
        }
        slice.text += more;
        at += n;
      }
      if (slice.text.back() != '\n') slice.text.push_back('\n');
    }
  });
  slice.first_line = data_first_line + comm::exscan(ctx, newlines_in_range) + first_line_offset;
  return slice;
}

bool LineCursor::next() {
  if (at_ >= text_.size()) return false;
  std::size_t nl = text_.find('\n', at_);
  if (nl == std::string_view::npos) nl = text_.size();
  line_ = text_.substr(at_, nl - at_);
  if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
  at_ = nl + 1;
  ++number_;
  return true;
}

int split_blanks(std::string_view line, std::string_view* tokens, int max) {
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

}  // namespace tessera::io
