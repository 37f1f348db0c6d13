#pragma once
// A line of a user's text file, made safe to echo in a message: a binary file's bytes would
// otherwise reach the terminal raw (control characters, invalid UTF-8) and the line could be
// megabytes long. Printable ASCII is kept, every other byte becomes \xNN, a tab \t, and the
// result is cut at `limit` characters of the line with "..." after it.
#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::io {

std::string quoted_text(std::string_view line, std::size_t limit = 80);

}  // namespace tessera::io
