#pragma once
// Parallel reading of a text file by lines: the bytes from `data_begin` to the end are split
// into one range per rank, and each rank takes the lines that *start* in its range (reading
// past its end to finish its last line), so every line is read by exactly one rank. Line
// numbers are global (1-based, counted from the start of the file), so a parser can name the
// exact line of a mistake whichever rank found it.
//
// Used by the Matrix Market reader (io/matrix_market.hpp) and BFS's edge lists.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "comm/context.hpp"

namespace tessera::io {

struct TextSlice {
  std::string text;              // whole lines, each ending in '\n' (one is added at EOF)
  std::int64_t first_line = 1;   // line number of the first line in text
};

// Collective. `data_first_line` is the line number at byte `data_begin`, which must be the
// start of a line. `what` names the file in messages ("the matrix file"). Throws InputError
// on every rank when the file cannot be read.
TextSlice read_text_slice(comm::Context& ctx, const std::filesystem::path& path, std::int64_t data_begin,
                          std::int64_t data_first_line, std::string_view what = "the file");

// Iterates the lines of a slice: next() returns false at the end; line() has no '\n' and no
// trailing '\r'; number() is its global line number.
class LineCursor {
 public:
  explicit LineCursor(const TextSlice& s) : text_(s.text), number_(s.first_line - 1) {}
  bool next();
  std::string_view line() const { return line_; }
  std::int64_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::string_view line_;
  std::int64_t number_;
};

// Splits `line` at blanks into at most `max` tokens; returns how many there were in all.
int split_blanks(std::string_view line, std::string_view* tokens, int max);

}  // namespace tessera::io
