#pragma once
// Helpers for the io tests: a per-test temporary directory shared by all ranks, data that is
// a pure function of (seed, global index) so any partition can regenerate what it expects,
// and checks of exception messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <type_traits>

#include "comm/collectives.hpp"
#include "comm/context.hpp"

namespace tessera::test {

// Collective: rank 0 creates a unique directory under the system temp dir and broadcasts its
// name; the destructor waits for every rank and removes it.
class TempDir {
 public:
  explicit TempDir(comm::Context& ctx) : ctx_(ctx) {
    std::string name;
    if (ctx.is_root()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "tessera_io_test_XXXXXX").string();
      if (::mkdtemp(tmpl.data()) == nullptr) tmpl.clear();
      name = tmpl;
    }
    comm::broadcast(ctx, name);
    if (name.empty()) throw std::runtime_error("cannot create a temporary directory");
    path_ = name;
  }
  ~TempDir() {
    try {
      comm::barrier(ctx_);
      if (ctx_.is_root()) std::filesystem::remove_all(path_);
    } catch (...) {
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  comm::Context& ctx_;
  std::filesystem::path path_;
};

inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A random, never-zero value of T for global element `i` of data set `seed`.
template <class T>
T value_at(std::uint64_t seed, std::int64_t i) {
  const std::uint64_t h = mix64(mix64(seed) ^ static_cast<std::uint64_t>(i));
  T v{};
  if constexpr (std::is_floating_point_v<T>) {
    v = static_cast<T>(static_cast<double>(h >> 11) * 0x1.0p-53 * 2000.0 - 1000.0);
  } else {
    std::memcpy(&v, &h, sizeof(T));
  }
  return v == T{} ? T{1} : v;
}

// Bitwise equality, so floating-point data must come back exactly.
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Runs f, expecting an exception of type E; returns its message ("" and a failure otherwise).
template <class E, class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected another exception type, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected an exception, none was thrown";
  return {};
}

#define TESSERA_EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text) << "\nexpected to contain: " << (part)

}  // namespace tessera::test
