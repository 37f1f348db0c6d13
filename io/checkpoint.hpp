#pragma once
// Checkpoint/restart files.
//
// A checkpoint is one HDF5 file, checkpoint_<step, 8+ digits>.h5, written collectively by all
// ranks. It holds
//   /           the provenance attributes of every tessera file (io/provenance.hpp)
//   /manifest   a group whose attributes are the CheckpointManifest below
//   /...        the solver's datasets, written with write_1d_checked / write_3d_checked, each
//               with its checksum (io/checked_io.hpp) and its units (io/units.hpp)
// Layouts are global, so a checkpoint written on P ranks restarts on any Q.
//
// Crash safety: the file is written as checkpoint_<step>.h5.tmp (an io::OutputFile) and only
// commit() gives it its final name: after every rank has flushed and closed it, it is read
// back and every dataset's checksum and the manifest are verified, then rank 0 renames it
// (atomically). A file with the final name is therefore always complete, even where MPI-IO
// failed to report a failed write (a full disk); *.tmp files are leftovers of an interrupted
// write and are never taken for checkpoints (CheckpointManager removes them on start).
//
// The manifest carries a checksum of all its fields (attributes "checksum" and
// "checksum_algorithm" of /manifest), so an edited step or time is found like changed data.
//
// Refusal: CheckpointReader throws InputError on every rank, with a message naming the file,
// for a missing file, one that is truncated, corrupted or not HDF5 (every object header and
// attribute is read once at open, so damaged HDF5 metadata is found there), one without a
// manifest or with impossible manifest values (a negative step, format version 0, a
// non-finite time), a manifest that does not match its checksum or whose step is not the one
// in the file name, one written by another solver or in a newer format, and for a dataset
// that cannot be read or whose data no longer matches its checksum. Every refusal is agreed
// across ranks (comm::AgreedInputError): no rank hangs, rank 0 prints it once, all exit 2.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/context.hpp"
#include "io/checked_io.hpp"
#include "io/h5_file.hpp"
#include "io/output_file.hpp"

namespace tessera::io {

struct CheckpointManifest {
  std::string solver;              // e.g. "nbody"; a restart of another solver is refused
  int format_version = 1;          // the solver's checkpoint layout version
  std::int64_t step = 0;
  double time = 0.0;
  std::string deck_text;           // the whole deck, so the run can be reproduced from the file
  std::string tessera_version;     // filled in by the writer when empty ("0.1.0 (commit)")
  int ranks = 0;                   // set by the writer: the number of ranks that wrote it
  std::vector<std::uint64_t> rng_state;
};

// "<dir>/checkpoint_00000042.h5"
std::filesystem::path checkpoint_path(const std::filesystem::path& dir, std::int64_t step);
// The step of a final checkpoint file name, or nullopt (wrong pattern, *.tmp, ...).
std::optional<std::int64_t> checkpoint_step(const std::filesystem::path& file);

// Manifest <-> the /manifest group. Collective.
void write_manifest(const Group& root, const CheckpointManifest& m);
// InputError naming what is missing, or a value no writer produces (step < 0, format
// version < 1, ranks < 1, a non-finite time, an empty solver name).
CheckpointManifest read_manifest(const Group& root);

class CheckpointWriter {
 public:
  // Collective. Creates `dir` if needed (rank 0; agreed), creates the temporary file and
  // writes the manifest (with ranks = ctx.size() and tessera_version filled in) and the
  // root's provenance attributes (solver and deck from the manifest).
  CheckpointWriter(comm::Context& ctx, std::filesystem::path dir, std::int64_t step, const CheckpointManifest& m);
  // Without commit(): the temporary file is removed and no checkpoint appears (see
  // io::OutputFile for what happens while an exception unwinds).
  ~CheckpointWriter() = default;
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // The file's root group: write datasets here (or in groups below it) with the checked
  // writers. Groups/datasets taken from it must be closed (destroyed) before commit().
  const Group& root() const;

  template <class T>
  Dataset write_1d_checked(std::string_view name, std::type_identity_t<std::span<const T>> local,
                           std::int64_t global_offset, std::int64_t global_size, const WriteOptions1D& opts = {}) {
    return io::write_1d_checked<T>(root(), name, local, global_offset, global_size, opts);
  }
  template <class T>
  Dataset write_3d_checked(std::string_view name, std::type_identity_t<std::span<const T>> local, const Box3& box,
                           const Strided3& mem, const WriteOptions3D& opts = {}) {
    return io::write_3d_checked<T>(root(), name, local, box, mem, opts);
  }

  // Collective: closes the file on every rank, verifies it (checksums and manifest), then
  // rank 0 syncs it and renames it to its final name; returns that name once every rank knows
  // the rename happened. A failure is a comm::CollectiveError (exit 1) on every rank naming
  // the file and the cause; no checkpoint appears.
  std::filesystem::path commit();
  // Collective: closes and removes the temporary file without committing.
  void abandon() { file_.abandon(); }

  const std::filesystem::path& final_path() const { return file_.final_path(); }
  const std::filesystem::path& temporary_path() const { return file_.temporary_path(); }
  bool committed() const { return file_.committed(); }

 private:
  OutputFile file_;
  CheckpointManifest manifest_;
};

class CheckpointReader {
 public:
  // Collective. Opens `path` and validates it (see "Refusal" above).
  CheckpointReader(comm::Context& ctx, const std::filesystem::path& path, std::string_view expected_solver,
                   int max_format_version);

  const CheckpointManifest& manifest() const { return manifest_; }
  const Group& root() const { return *root_; }
  const std::filesystem::path& path() const { return path_; }

  // Collective reads that verify the dataset's checksum over all ranks (InputError naming the
  // dataset when it is corrupted). Any partition over any number of ranks.
  template <class T>
  std::vector<T> read_1d_checked(std::string_view name, std::int64_t offset, std::int64_t count) const {
    return io::read_1d_checked<T>(root(), name, offset, count);
  }
  template <class T>
  void read_3d_checked(std::string_view name, std::type_identity_t<std::span<T>> local, const Box3& box,
                       const Strided3& mem) const {
    io::read_3d_checked<T>(root(), name, local, box, mem);
  }

  // Collective: closes the file now (otherwise the destructor does).
  void close();

 private:
  std::filesystem::path path_;
  std::optional<File> file_;
  std::optional<Group> root_;
  CheckpointManifest manifest_;
};

class CheckpointManager {
 public:
  // Collective. keep: how many of the newest checkpoints prune() retains (0 = all). Removes
  // leftover checkpoint_*.h5.tmp files of interrupted writes (rank 0; agreed). Create it at
  // start-up, not while a CheckpointWriter for the same directory is open.
  CheckpointManager(comm::Context& ctx, std::filesystem::path dir, int keep);

  const std::filesystem::path& dir() const { return dir_; }
  int keep() const { return keep_; }
  std::filesystem::path path_for(std::int64_t step) const { return checkpoint_path(dir_, step); }

  // Collective (rank 0 scans, all receive): steps of the complete checkpoints, ascending.
  std::vector<std::int64_t> list() const;
  std::optional<std::int64_t> newest() const;
  // Collective: deletes all but the newest `keep` (rank 0; agreed); returns the deleted steps.
  std::vector<std::int64_t> prune() const;

 private:
  comm::Context* ctx_;
  std::filesystem::path dir_;
  int keep_;
};

}  // namespace tessera::io
