#pragma once
// Parallel HDF5 files, groups and datasets as RAII objects over ctx.world().
//
// Every call here is collective: all ranks call it in the same order with identical
// arguments (HDF5 metadata operations are collective, and files are opened with
// H5Pset_all_coll_metadata_ops / H5Pset_coll_metadata_write so metadata is read once and
// broadcast, and written by one rank). Checks that one rank alone could fail (a file missing
// on this node) are agreed across ranks, so every rank throws the same error and none hangs.
//
// Lifetime: a File, Group or Dataset each hold an HDF5 id. Files are opened with
// H5F_CLOSE_WEAK, so the file really closes when the File and every Group/Dataset from it are
// gone, in whatever order they are destroyed. File::close() closes it now and insists that
// nothing else of it is still open (a checkpoint must be complete on disk before renaming).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "comm/context.hpp"
#include "io/h5_error.hpp"
#include "io/h5_handle.hpp"
#include "io/h5_types.hpp"

namespace tessera::io {

// read: read-only; read_write: an existing file; create_truncate: a new file, replacing any.
enum class Mode { read, read_write, create_truncate };

// Something inside a file: a group or a dataset (attributes attach to either).
class Object {
 public:
  hid_t id() const { return handle_.get(); }
  comm::Context& context() const { return *ctx_; }
  // Absolute path inside the file ("/", "/fields/Ex").
  const std::string& name() const { return name_; }
  // The file's path on disk, for messages.
  const std::string& file_name() const { return file_; }
  // Absolute path of `child` relative to this object ("Ex" -> "/fields/Ex"; "/a" stays "/a").
  std::string path_of(std::string_view child) const;

 protected:
  Object(Handle h, comm::Context& ctx, std::string file, std::string name)
      : handle_(std::move(h)), ctx_(&ctx), file_(std::move(file)), name_(std::move(name)) {}

 private:
  Handle handle_;
  comm::Context* ctx_;
  std::string file_;
  std::string name_;
};

class Dataset;

class Group : public Object {
 public:
  // Opens "/" (or any group) of an open file id; used by File::root().
  Group(Handle h, comm::Context& ctx, std::string file, std::string name)
      : Object(std::move(h), ctx, std::move(file), std::move(name)) {}

  // Creates `path` (relative or absolute, nested: missing intermediate groups are created).
  Group create_group(std::string_view path) const;
  // Opens an existing group; InputError naming it and the file when it is missing.
  Group open_group(std::string_view path) const;
  // Opens `path` when it exists, creates it otherwise.
  Group require_group(std::string_view path) const;
  // True when every link along `path` exists (a group, dataset or other object).
  bool exists(std::string_view path) const;
  // Opens an existing dataset; InputError naming it and the file when it is missing.
  Dataset open_dataset(std::string_view path) const;
  // Removes the link `path` (the space is not reclaimed; HDF5 files do not shrink).
  void unlink(std::string_view path) const;
};

class Dataset : public Object {
 public:
  Dataset(Handle h, comm::Context& ctx, std::string file, std::string name)
      : Object(std::move(h), ctx, std::move(file), std::move(name)) {}

  ElementType element_type() const;
  // Dimensions in file order (slowest first), e.g. {nz, ny, nx}.
  std::vector<std::int64_t> extent() const;
  // InputError "dataset /x in F has type int64, expected float32" unless the type is `want`.
  void require_type(ElementType want) const;
};

// How many HDF5 files this process still has open (for the end of a failed run: files given
// up with File::release() would be closed by HDF5 inside MPI_Finalize).
int open_file_count();

class File {
 public:
  // Collective over ctx.world(). Opening a missing file, one that is not HDF5 or is truncated
  // throws InputError on every rank with a clear message; other failures throw H5Error.
  File(comm::Context& ctx, const std::filesystem::path& path, Mode mode);
  static File create(comm::Context& ctx, const std::filesystem::path& path) {
    return File(ctx, path, Mode::create_truncate);
  }
  static File open(comm::Context& ctx, const std::filesystem::path& path, Mode mode = Mode::read) {
    return File(ctx, path, mode);
  }
  ~File() = default;  // drops this reference; see "Lifetime" above
  File(File&&) noexcept = default;
  File& operator=(File&&) noexcept = default;

  Group root() const;
  // Collective: writes cached data and metadata to the file system.
  void flush() const;
  // Collective: closes the file now. Throws std::logic_error listing the groups/datasets of
  // it that are still open (close them first), H5Error when HDF5 fails to close.
  void close();

  // Gives up the file id without closing it, for error paths where other ranks may never
  // reach a collective close; HDF5 closes it when MPI finalises.
  hid_t release() { return handle_.release(); }

  bool is_open() const { return handle_.valid(); }
  hid_t id() const { return handle_.get(); }
  comm::Context& context() const { return *ctx_; }
  const std::filesystem::path& path() const { return path_; }
  Mode mode() const { return mode_; }

 private:
  Handle handle_;
  comm::Context* ctx_;
  std::filesystem::path path_;
  Mode mode_;
};

}  // namespace tessera::io
