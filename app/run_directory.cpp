#include "app/run_directory.hpp"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/agree.hpp"
#include "io/checkpoint.hpp"
#include "io/output_file.hpp"

namespace tessera::app {
namespace {

namespace fs = std::filesystem;

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string read_small_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The value of `key = "..."` (or a bare value) in a tessera_run.toml / lock file, or "?".
std::string field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + " = ", 0) != 0) continue;
    std::string v = line.substr(key.size() + 3);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
  }
  return "?";
}

// The files an earlier run left: its manifest, HDF5 outputs, XDMF sidecars and unfinished
// *.tmp files in the output directory, and the checkpoints in the checkpoint directory.
std::vector<fs::path> earlier_outputs(const fs::path& out, const fs::path& ck) {
  std::vector<fs::path> found;
  std::error_code ec;
  if (fs::is_directory(out, ec))
    for (const auto& e : fs::directory_iterator(out, ec)) {
      if (!e.is_regular_file()) continue;
      const std::string name = e.path().filename().string();
      if (name == kRunManifestFile || name.ends_with(".h5") || name.ends_with(".xmf") || name.ends_with(".h5.tmp") ||
          name.ends_with(".xmf.tmp"))
        found.push_back(e.path());
    }
  if (fs::is_directory(ck, ec))
    for (const auto& e : fs::directory_iterator(ck, ec)) {
      if (!e.is_regular_file()) continue;
      const std::string name = e.path().filename().string();
      const std::string base = name.ends_with(".tmp") ? name.substr(0, name.size() - 4) : name;
      if (io::checkpoint_step(base) && std::find(found.begin(), found.end(), e.path()) == found.end())
        found.push_back(e.path());
    }
  return found;
}

// Creates `dir` (and parents) and proves that files can be created in it.
void prepare_writable(const fs::path& dir, const std::string& what) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InputError(fmt::format("{} '{}' exists and is not a directory", what, dir.string()));
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("cannot create {} '{}': {}", what, dir.string(), ec.message()));
  const fs::path probe = dir / fmt::format(".tessera-write-probe-{}", ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw InputError(fmt::format("{} '{}' is not writable: {}; nothing was run", what, dir.string(),
                                 std::strerror(errno)));
  ::close(fd);
  fs::remove(probe, ec);
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
}

}  // namespace

RunDirectory::RunDirectory(comm::Context& ctx, const deck::Deck& deck, const RunDirectoryRequest& r)
    : ctx_(&ctx), output_dir_(r.output_dir), checkpoint_dir_(r.checkpoint_dir),
      uncaught_at_start_(std::uncaught_exceptions()) {
  try {
    claim(ctx, deck, r);
  } catch (...) {
    undo_failed_start();  // no destructor runs for an object whose constructor threw
    if (lock_fd_ >= 0) ::close(lock_fd_);
    throw;
  }
}

void RunDirectory::claim(comm::Context& ctx, const deck::Deck& deck, const RunDirectoryRequest& r) {
  const std::string started = utc_now();
  const std::string host = host_name();
  io::agree_input(ctx, [&] {
    if (!ctx.is_root()) return;
    if (r.output_dir.empty())
      throw InputError(fmt::format("{}: run.output_dir is empty; name a directory (\".\" for this one)",
                                   deck.where("run.output_dir")));
    if (r.restart && r.overwrite)
      throw InputError("--overwrite deletes the earlier run's outputs and --restart continues them: give one of the two");
    created_output_dir_ = !r.output_dir.empty() && !fs::exists(r.output_dir);
    prepare_writable(r.output_dir, fmt::format("output directory (run.output_dir, {})", deck.where("run.output_dir")));

    // The lock: flock is released by the kernel when the process ends, however it ends, so a
    // killed run never leaves a stale lock behind.
    const fs::path lock = r.output_dir / kRunLockFile;
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) throw InputError(fmt::format("cannot create the lock {}: {}", lock.string(), std::strerror(errno)));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(lock_fd_);
      lock_fd_ = -1;
      if (err != EWOULDBLOCK)
        throw InputError(fmt::format("cannot lock {}: {}", lock.string(), std::strerror(err)));
      const std::string holder = read_small_file(lock);
      throw InputError(fmt::format("output directory '{}' is in use by another tessera run (run {}, pid {} on {}, "
                                   "started {}); wait for it to end or choose another run.output_dir",
                                   r.output_dir.string(), field(holder, "run_id"), field(holder, "pid"),
                                   field(holder, "host"), field(holder, "started")));
    }
    run_id_ = fmt::format("{}-{}-{}", started, host, ::getpid());
    const std::string who = fmt::format("run_id = \"{}\"\npid = {}\nhost = \"{}\"\nstarted = \"{}\"\n", run_id_,
                                        ::getpid(), host, started);
    if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, who.data(), who.size(), 0) < 0)
      log::warn("could not record this run in {}: {}", lock.string(), std::strerror(errno));

    created_checkpoint_dir_ = !fs::exists(r.checkpoint_dir);
    prepare_writable(r.checkpoint_dir, fmt::format("checkpoint directory ({})", deck.where("checkpoint.dir")));

    const std::vector<fs::path> earlier = earlier_outputs(r.output_dir, r.checkpoint_dir);
    if (!r.restart && !earlier.empty()) {
      const fs::path manifest = r.output_dir / kRunManifestFile;
      const std::string previous = fs::exists(manifest) ? read_small_file(manifest) : std::string();
      const std::string which =
          previous.empty() ? std::string("an earlier run")
                           : fmt::format("an earlier run (run {}, solver {}, started {})", field(previous, "run_id"),
                                         field(previous, "solver"), field(previous, "started"));
      if (!r.overwrite)
        throw InputError(fmt::format("output directory '{}' holds the outputs of {} ({} file(s), e.g. {}): continue "
                                     "it with --restart latest, start over with --overwrite (deletes them), or "
                                     "choose another run.output_dir",
                                     r.output_dir.string(), which, earlier.size(),
                                     earlier.front().filename().string()));
      for (const fs::path& p : earlier) {
        std::error_code ec;
        fs::remove(p, ec);
        if (ec) throw InputError(fmt::format("--overwrite: cannot delete {}: {}", p.string(), ec.message()));
      }
      log::info("--overwrite: deleted {} file(s) of {} in {}", earlier.size(), which, r.output_dir.string());
    }

    const std::string manifest = fmt::format(
        "# The identity of the tessera run that last started in this directory.\n"
        "{}solver = \"{}\"\nranks = {}\nrestart = {}\ncommand = \"{}\"\n",
        who, r.solver, ctx.size(), r.restart ? "true" : "false", r.command_line);
    io::publish_text_file(r.output_dir / kRunManifestFile, manifest);
    wrote_manifest_ = true;
  });
  comm::broadcast(ctx, run_id_);
  // Every rank must see the directories (a node-local path would not be shared).
  io::agree_input(ctx, [&] {
    for (const fs::path& d : {r.output_dir, r.checkpoint_dir})
      if (!fs::is_directory(d))
        throw InputError(fmt::format("directory '{}' is not visible on rank {} (is it on a shared file system?)",
                                     d.string(), ctx.rank()));
  });
}

RunDirectory::~RunDirectory() {
  if (std::uncaught_exceptions() > uncaught_at_start_) undo_failed_start();
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing the descriptor releases the flock
}

// A failed start: undo what this class did (rank 0 did it all), but only while nothing else
// is there.
void RunDirectory::undo_failed_start() {
  std::error_code ec;
  if (created_checkpoint_dir_ && fs::is_empty(checkpoint_dir_, ec)) fs::remove(checkpoint_dir_, ec);
  if (lock_fd_ < 0 && !created_output_dir_) return;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(output_dir_, ec)) left.push_back(e.path().filename().string());
  const bool only_ours = std::all_of(left.begin(), left.end(), [&](const std::string& n) {
    return (n == kRunLockFile && lock_fd_ >= 0) || (n == kRunManifestFile && wrote_manifest_);
  });
  if (ec || !only_ours) return;
  if (wrote_manifest_) fs::remove(output_dir_ / kRunManifestFile, ec);
  if (lock_fd_ >= 0) fs::remove(output_dir_ / kRunLockFile, ec);  // still ours until the descriptor closes
  if (created_output_dir_) fs::remove(output_dir_, ec);
}

}  // namespace tessera::app
