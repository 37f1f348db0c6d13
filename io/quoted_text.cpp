#include "io/quoted_text.hpp"

#include <fmt/format.h>

namespace tessera::io {

std::string quoted_text(std::string_view line, std::size_t limit) {
  std::string out;
  const std::size_t n = line.size() < limit ? line.size() : limit;
  out.reserve(n + 8);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == '\t') out += "\\t";
    else if (c == '\\') out += "\\\\";
    else if (c >= 0x20 && c < 0x7f) out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  if (line.size() > limit) out += "...";
  return out;
}

}  // namespace tessera::io
