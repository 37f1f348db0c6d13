#pragma once
// OutputFile: an HDF5 file that appears under its final name only whole and verified.
//
//   io::OutputFile out(ctx, dir / "snapshot_0003.h5");      // writes snapshot_0003.h5.tmp
//   write_1d_checked<double>(out.root(), "x", ...);           // checked datasets are verified
//   out.commit();                                             // or the .tmp is removed
//
// commit() (collective) flushes and closes the file on every rank, re-reads it and verifies
// every checksummed dataset (io/verify.hpp; MPI-IO does not always report a failed write),
// has rank 0 sync it and rename it over the final name (atomic: an older file of that name
// stays whole until then), and syncs the directory. Any failure, on any rank, is agreed:
// every rank throws the same comm::CollectiveError (exit code 1) naming the file, the cause
// and the free space left, the temporary file is removed, and the final name is untouched.
//
// OutputFile::modify() starts from a copy of an existing file instead (time series that grow
// by appending): the original stays as it was until the modified copy is verified.
//
// Without commit(), the temporary file is removed when the OutputFile is destroyed.
// Destruction while an exception unwinds does nothing collective (other ranks may be
// elsewhere): the HDF5 id is given up for HDF5 to close at MPI_Finalize, rank 0 removes the
// name.
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "comm/context.hpp"
#include "io/h5_file.hpp"

namespace tessera::io {

class OutputFile {
 public:
  // Collective: creates `final_path`.tmp (replacing a leftover).
  OutputFile(comm::Context& ctx, std::filesystem::path final_path);
  // Collective: copies `final_path` (which must exist) to the temporary name and opens the
  // copy for reading and writing.
  static OutputFile modify(comm::Context& ctx, std::filesystem::path final_path);
  ~OutputFile();
  OutputFile(OutputFile&&) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  OutputFile& operator=(OutputFile&&) = delete;

  // The file's root group. Groups/datasets taken from it must be closed before commit().
  const Group& root() const;

  // Collective: see above. `check`, when given, runs on the reopened file (read-only) after
  // the checksums, for checks of its own (a checkpoint's manifest). Returns the final path.
  std::filesystem::path commit(const std::function<void(const Group&)>& check = {});
  // Collective: closes and removes the temporary file.
  void abandon();

  const std::filesystem::path& final_path() const { return final_; }
  const std::filesystem::path& temporary_path() const { return tmp_; }
  bool committed() const { return committed_; }

 private:
  struct Copy {};
  OutputFile(comm::Context& ctx, std::filesystem::path final_path, Copy);
  void close_on_all_ranks();
  [[noreturn]] void fail_agreed(int failed_rank, std::string_view cause);

  comm::Context* ctx_;
  std::filesystem::path final_, tmp_;
  std::optional<File> file_;
  std::optional<Group> root_;
  bool committed_ = false;
  int uncaught_at_start_;
};

// The one message of every failed publication: "writing F failed, the file was not
// published: CAUSE; N free of M on the file system holding D". A cause that is already such a
// message for F is returned as it is.
std::string publication_failure(const std::filesystem::path& final_path, std::string_view cause);

// "<final>.tmp": where an OutputFile writes before commit().
std::filesystem::path temporary_name(const std::filesystem::path& final_path);

// Not collective: writes `text` to `path`.tmp, syncs it, checks every step (a full disk shows
// up at write, flush or close) and renames it over `path`. std::runtime_error naming the file
// and the free space on failure, with the temporary file removed.
void publish_text_file(const std::filesystem::path& path, std::string_view text);

// Pushes a file's (or directory's) data to stable storage. Directories that cannot be
// synced are skipped; a file that cannot be is an error (std::runtime_error).
void sync_path(const std::filesystem::path& p, bool directory);

}  // namespace tessera::io
