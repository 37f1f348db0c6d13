#pragma once
// A scratch directory all ranks of an MPI test share: rank 0 creates a fresh one and
// broadcasts its path; it is removed (by rank 0, after a barrier) when the object goes away.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "comm/collectives.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::test {

class SharedTempDir {
 public:
  explicit SharedTempDir(const std::string& prefix) {
    auto& ctx = context();
    static int counter = 0;
    std::string dir = ctx.rank() == 0 ? (std::filesystem::temp_directory_path() /
                                         fmt::format("{}_{}_{}", prefix, getpid(), counter++))
                                            .string()
                                      : std::string();
    comm::broadcast(ctx, dir);
    path_ = dir;
    if (ctx.rank() == 0) std::filesystem::create_directories(path_);
    comm::barrier(ctx);
  }
  ~SharedTempDir() {
    comm::barrier(context());
    if (context().rank() == 0) std::filesystem::remove_all(path_);
  }
  SharedTempDir(const SharedTempDir&) = delete;
  SharedTempDir& operator=(const SharedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tessera::test
