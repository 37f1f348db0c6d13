#include "solvers/fdtd/geometry/stl_reader.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "solvers/fdtd/params.hpp"

namespace tessera::fdtd {
namespace {

constexpr std::size_t kHeader = 84, kRecord = 50;  // binary STL: 80-byte header + count, 50 bytes a facet

std::string read_all(const ShapeFile& f) {
  std::ifstream in(f.path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be opened: {}", stl_context(f), std::strerror(errno)));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(fmt::format("{}: read error", stl_context(f)));
  return bytes;
}

std::vector<Triangle> read_binary(const std::string& bytes, std::uint32_t n) {
  std::vector<Triangle> tris(n);
  for (std::size_t t = 0; t < n; ++t) {
    const char* rec = bytes.data() + kHeader + t * kRecord + 12;  // past the normal
    for (int v = 0; v < 3; ++v)
      for (int a = 0; a < 3; ++a) {
        float x;  // little-endian IEEE single, as every STL writer and this machine store it
        std::memcpy(&x, rec + 4 * (3 * v + a), 4);
        tris[t][v][a] = x;
      }
  }
  return tris;
}

// ASCII: solid NAME (facet normal x y z outer loop vertex x y z (x3) endloop endfacet)* endsolid.
// Keywords are matched without case; the normal's numbers are skipped.
class AsciiParser {
 public:
  AsciiParser(const ShapeFile& f, const std::string& text) : f_(f), s_(text) {}

  std::vector<Triangle> parse() {
    expect("solid");
    // The solid's name: the rest of the line.
    while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    std::vector<Triangle> tris;
    for (;;) {
      const std::string w = word();
      if (w == "endsolid") return tris;
      if (w.empty() || (pos_ == s_.size() && w != "facet"))
        throw InputError(fmt::format("{}: truncated ASCII STL: the file ends after {} complete facet(s) without "
                                     "'endsolid'",
                                     stl_context(f_), tris.size()));
      if (w != "facet") fail("'facet' or 'endsolid'", w, tris.size());
      Triangle t;
      expect("normal", tris.size());
      for (int i = 0; i < 3; ++i) number(tris.size());
      expect("outer", tris.size());
      expect("loop", tris.size());
      for (auto& v : t) {
        expect("vertex", tris.size());
        for (double& x : v) x = number(tris.size());
      }
      expect("endloop", tris.size());
      expect("endfacet", tris.size());
      tris.push_back(t);
    }
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      if (s_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }
  std::string word() {
    skip_space();
    const std::size_t b = pos_;
    while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    std::string w = s_.substr(b, pos_ - b);
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return w;
  }
  [[noreturn]] void fail(const char* wanted, const std::string& found, std::size_t facet) {
    if (found.empty() || pos_ == s_.size())  // nothing, or a word cut by the end of the file
      throw InputError(fmt::format("{}: truncated ASCII STL: the file ends inside facet {} (line {}), where {} "
                                   "should follow",
                                   stl_context(f_), facet, line_, wanted));
    throw InputError(fmt::format("{}: not a valid ASCII STL: line {} (facet {}) has '{}' where {} should be",
                                 stl_context(f_), line_, facet, found.substr(0, 40), wanted));
  }
  void expect(const char* keyword, std::size_t facet = 0) {
    const std::string w = word();
    if (w != keyword) {
      if (line_ == 1 && facet == 0 && std::string(keyword) == "solid")
        throw InputError(fmt::format("{}: is not an STL file: it does not start with 'solid' (ASCII STL) and its size "
                                     "does not fit a binary STL (84 + 50 n bytes)",
                                     stl_context(f_)));
      fail(fmt::format("'{}'", keyword).c_str(), w, facet);
    }
  }
  double number(std::size_t facet) {
    const std::string w = word();
    if (w.empty()) fail("a number", w, facet);
    char* end = nullptr;
    const double x = std::strtod(w.c_str(), &end);
    if (end != w.c_str() + w.size()) fail("a number", w, facet);
    return x;
  }

  const ShapeFile& f_;
  const std::string& s_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

// ASCII STL: text (no control characters but white space) that starts with "solid". A binary
// header may start with "solid" too; its floats then give control bytes away.
bool looks_ascii(const std::string& bytes) {
  std::size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (bytes.compare(i, 5, "solid") != 0) return false;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 32 && !std::isspace(c)) || c == 127) return false;
  }
  return true;
}

}  // namespace

std::string stl_context(const ShapeFile& f) { return fmt::format("{}: {}: '{}'", f.where, f.name, f.path); }

std::vector<Triangle> read_stl(const ShapeFile& f) {
  const std::string bytes = read_all(f);
  std::vector<Triangle> tris;
  std::uint32_t n = 0;
  if (bytes.size() >= kHeader) std::memcpy(&n, bytes.data() + 80, 4);
  const std::size_t expected = kHeader + kRecord * std::size_t{n};
  if (bytes.size() >= kHeader && bytes.size() == expected) {
    tris = read_binary(bytes, n);
  } else if (looks_ascii(bytes)) {
    tris = AsciiParser(f, bytes).parse();
  } else if (bytes.size() < kHeader) {
    throw InputError(fmt::format("{}: is not an STL file: it does not start with 'solid' (ASCII STL) and has {} "
                                 "bytes, fewer than the 84-byte header of a binary STL",
                                 stl_context(f), bytes.size()));
  } else {
    throw InputError(fmt::format("{}: is not an STL file, or a truncated one: it is not ASCII STL (text starting with "
                                 "'solid'), and as a binary STL its header announces {} triangles, which take 84 + 50 "
                                 "x {} = {} bytes; the file has {} bytes ({} complete triangles){}",
                                 stl_context(f), n, n, expected, bytes.size(), (bytes.size() - kHeader) / kRecord,
                                 bytes.size() < expected ? "" : ": too many"));
  }
  if (tris.empty()) throw InputError(fmt::format("{}: holds no triangles (an empty surface)", stl_context(f)));
  for (std::size_t t = 0; t < tris.size(); ++t)
    for (const Vertex& v : tris[t])
      for (double x : v)
        if (!std::isfinite(x))
          throw InputError(fmt::format("{}: triangle {} (counted from 0) has a vertex ({:g}, {:g}, {:g}) that is not "
                                       "a finite number",
                                       stl_context(f), t, v[0], v[1], v[2]));
  return tris;
}

}  // namespace tessera::fdtd
