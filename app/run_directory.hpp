#pragma once
// The output directory of one run, guarded:
//  - a lock (.tessera.lock, held by rank 0 with flock for the whole run) so two runs never
//    write into one directory at once: a second run is refused at start-up, naming the first;
//  - an identity (tessera_run.toml: run id, solver, host, ranks, start time, command line),
//    rewritten by every run that starts there;
//  - reuse rules: a fresh run that finds an earlier run's outputs (its tessera_run.toml, HDF5
//    files, XDMF sidecars, checkpoints) is refused unless --overwrite, which deletes exactly
//    those first; --restart continues in the directory; --restart with --overwrite is refused.
//  - the output and checkpoint directories are created here, only once the deck and the
//    solver set-up were accepted (a refused deck leaves nothing behind), and probed for
//    writing at once (a read-only directory is refused before any work, not after it).
// Every refusal is an InputError (exit 2) agreed on every rank, naming the directory or key.
#include <filesystem>
#include <string>

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
  // Releases the lock. When the run fails before writing anything (an exception unwinds and
  // the directory holds only what this class put there), removes those files and the
  // directories it created, so a failed start leaves nothing behind.
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  const std::string& run_id() const { return run_id_; }

 private:
  void claim(comm::Context& ctx, const deck::Deck& deck, const RunDirectoryRequest& request);
  void undo_failed_start();

  comm::Context* ctx_;
  int lock_fd_ = -1;
  std::string run_id_;
  std::filesystem::path output_dir_, checkpoint_dir_;
  bool created_output_dir_ = false, created_checkpoint_dir_ = false, wrote_manifest_ = false;
  int uncaught_at_start_ = 0;
};

// The names tessera gives the files of a run directory.
inline constexpr const char* kRunLockFile = ".tessera.lock";
inline constexpr const char* kRunManifestFile = "tessera_run.toml";

}  // namespace tessera::app
