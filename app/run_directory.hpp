#pragma once
// The output directory of one run, guarded:
//  - a lock (.tessera.lock, held by rank 0 with flock for the whole run) so two runs never
//    write into one directory at once: a second run is refused at start-up, naming the first
//    (the lock's contents name its holder from the moment it is taken; a refused start puts
//    the earlier contents back);
//  - an identity (tessera_run.toml: run id, solver, host, ranks, start time, command line),
//    rewritten by every run that is accepted there, and the list of the files the run (and
//    the runs it continues) published, appended as they are published ([[file]] path = ...);
//  - reuse rules: a fresh run that finds an earlier run's outputs (its tessera_run.toml, HDF5
//    files, XDMF sidecars, checkpoints) is refused unless --overwrite, which deletes exactly
//    the files the earlier run's tessera_run.toml lists as its own (and that manifest): a
//    user's files beside them are kept, and named; --restart continues in the directory;
//    --restart with --overwrite is refused.
//  - the output and checkpoint directories are created here, only once the deck and the
//    solver set-up were accepted (a refused deck leaves nothing behind), and probed for
//    writing at once (a read-only directory is refused before any work, not after it).
// Two steps: the constructor checks, creates what is missing and takes the lock, but deletes
// and rewrites nothing (except the lock's contents, restored when the run is refused); the caller then reads the inputs and, on a restart, opens the
// checkpoint and lets the solver read its state (and, once its checks passed, reopen its
// series files), and only accept() deletes (--overwrite) and writes the lock's and the
// manifest's contents. A run refused in between leaves the directory as it found it.
// Every refusal is an InputError (exit 2) agreed on every rank, naming the directory or key.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "core/deck/config.hpp"

namespace tessera::app {

struct RunDirectoryRequest {
  std::filesystem::path output_dir;      // run.output_dir
  std::filesystem::path checkpoint_dir;  // checkpoint.dir, or output_dir/checkpoints
  std::string solver;
  std::string command_line;  // as the user typed it, for the manifest
  bool restart = false;      // --restart given
  bool overwrite = false;    // --overwrite given
};

class RunDirectory {
 public:
  // Collective (rank 0 does the file-system work; the outcome is agreed).
  RunDirectory(comm::Context& ctx, const deck::Deck& deck, const RunDirectoryRequest& request);
  // Collective: the run is accepted. --overwrite deletes the earlier run's own files; the lock
  // and tessera_run.toml name this run; from here each file published is recorded as its own.
  void accept();
  // Releases the lock. When the run fails before writing anything (an exception unwinds and
  // the directory holds only what this class put there), removes those files and the
  // directories it created, so a failed start leaves nothing behind.
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  const std::string& run_id() const { return run_id_; }
  // The output directory holds an earlier run's manifest (tessera_run.toml): a restart into it
  // continues that run's outputs, which are there; one into a fresh directory has none (every rank).
  bool holds_earlier_run() const { return holds_earlier_run_; }

 private:
  void claim(comm::Context& ctx, const deck::Deck& deck, const RunDirectoryRequest& request);
  void accept_on_root();
  void record(const std::filesystem::path& published);
  void undo_failed_start();

  comm::Context* ctx_;
  RunDirectoryRequest request_;
  int lock_fd_ = -1;
  std::string run_id_, identity_;  // identity_: the lock's contents (run id, pid, host, start)
  std::filesystem::path output_dir_, checkpoint_dir_;
  std::vector<std::string> earlier_;  // the earlier run's outputs, for --overwrite
  std::set<std::string> own_;         // the files recorded in the manifest (rank 0)
  std::vector<std::string> unwritten_;  // published before accept(), recorded by it
  bool observing_ = false;              // this object is the publish observer (rank 0)
  bool created_output_dir_ = false, created_checkpoint_dir_ = false, created_lock_ = false;
  bool accepted_ = false, wrote_manifest_ = false;
  bool holds_earlier_run_ = false;
  std::string lock_before_;  // the lock's contents before this run took it, restored if refused
  bool wrote_lock_ = false;
  int uncaught_at_start_ = 0;
};

// Collective, writes nothing: the newest final-named checkpoint in `dir` (for --restart
// latest), agreed from rank 0's view.
std::optional<std::filesystem::path> newest_checkpoint(comm::Context& ctx, const std::filesystem::path& dir);

// The names tessera gives the files of a run directory.
inline constexpr const char* kRunLockFile = ".tessera.lock";
inline constexpr const char* kRunManifestFile = "tessera_run.toml";

}  // namespace tessera::app
