#include "app/run_directory.hpp"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
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
#include "io/publish_hook.hpp"

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

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\')
      out += {'\\', c};
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out + "\"";
}

// The inverse of toml_quoted for one `key = "..."` value ("" when malformed).
std::string toml_unquoted(const std::string& value) {
  if (value.size() < 2 || value.front() != '"' || value.back() != '"') return {};
  std::string out;
  for (std::size_t i = 1; i + 1 < value.size(); ++i) {
    if (value[i] != '\\') {
      out += value[i];
      continue;
    }
    if (++i + 1 >= value.size()) return {};
    if (value[i] == 'u' && i + 4 < value.size()) {
      out += static_cast<char>(std::stoi(value.substr(i + 1, 4), nullptr, 16));
      i += 4;
    } else {
      out += value[i];
    }
  }
  return out;
}

// The files a manifest lists as its run's own: each `path = "..."` of its [[file]] entries
// (relative to the output directory, or absolute). An older manifest lists none.
std::vector<std::string> listed_files(const std::string& manifest) {
  std::vector<std::string> out;
  std::istringstream in(manifest);
  std::string line;
  bool in_file = false;
  while (std::getline(in, line)) {
    if (line == "[[file]]") in_file = true;
    else if (in_file && line.rfind("path = ", 0) == 0)
      if (std::string p = toml_unquoted(line.substr(7)); !p.empty()) out.push_back(std::move(p));
  }
  return out;
}

std::string file_entry(const std::string& name) { return "\n[[file]]\npath = " + toml_quoted(name) + "\n"; }

fs::path absolute_normal(const fs::path& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? p : a).lexically_normal();
}

// Whether `p` lies strictly below directory `dir` (both absolute and normal).
bool below(const fs::path& p, const fs::path& dir) {
  const fs::path rel = p.lexically_relative(dir);
  return !rel.empty() && rel != "." && *rel.begin() != "..";
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
    : ctx_(&ctx), request_(r), output_dir_(r.output_dir), checkpoint_dir_(r.checkpoint_dir),
      uncaught_at_start_(std::uncaught_exceptions()) {
  try {
    claim(ctx, deck, r);
  } catch (...) {
    if (observing_) io::set_publish_observer({});
    undo_failed_start();  // no destructor runs for an object whose constructor threw
    if (lock_fd_ >= 0) ::close(lock_fd_);
    throw;
  }
}

// Checks, creates what is missing and takes the lock; deletes nothing and rewrites no file
// that is there (accept() does).
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
    // killed run never leaves a stale lock behind. An existing lock file is opened, not
    // truncated: its contents change only once the run is accepted.
    const fs::path lock = r.output_dir / kRunLockFile;
    created_lock_ = !fs::exists(lock);
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) throw InputError(fmt::format("cannot create the lock {}: {}", lock.string(), std::strerror(errno)));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(lock_fd_);
      lock_fd_ = -1;
      created_lock_ = false;  // another run holds it: it is theirs now
      if (err != EWOULDBLOCK)
        throw InputError(fmt::format("cannot lock {}: {}", lock.string(), std::strerror(err)));
      const std::string holder = read_small_file(lock);
      throw InputError(fmt::format("output directory '{}' is in use by another tessera run (run {}, pid {} on {}, "
                                   "started {}); wait for it to end or choose another run.output_dir",
                                   r.output_dir.string(), field(holder, "run_id"), field(holder, "pid"),
                                   field(holder, "host"), field(holder, "started")));
    }
    run_id_ = fmt::format("{}-{}-{}", started, host, ::getpid());
    identity_ = fmt::format("run_id = \"{}\"\npid = {}\nhost = {}\nstarted = \"{}\"\n", run_id_, ::getpid(),
                            toml_quoted(host), started);
    // The lock names its holder from the moment it is taken, so a second run refused while
    // this one still reads its inputs names this run. A refused start puts the earlier
    // contents back (undo_failed_start): nothing of the directory changes before accept().
    lock_before_ = read_small_file(lock);
    if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, identity_.data(), identity_.size(), 0) < 0)
      log::warn("could not record this run in {}: {}", lock.string(), std::strerror(errno));
    wrote_lock_ = true;

    created_checkpoint_dir_ = !fs::exists(r.checkpoint_dir);
    prepare_writable(r.checkpoint_dir, fmt::format("checkpoint directory ({})", deck.where("checkpoint.dir")));

    const std::vector<fs::path> earlier = earlier_outputs(r.output_dir, r.checkpoint_dir);
    holds_earlier_run_ = fs::exists(r.output_dir / kRunManifestFile);
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
      for (const fs::path& p : earlier) earlier_.push_back(p.string());  // deleted by accept(), when listed
    }
    // From here each published file is this run's (a restart reopens its series before
    // accept()); recorded in the manifest once accept() writes it.
    io::set_publish_observer([this](const fs::path& p) { record(p); });
    observing_ = true;
  });
  comm::broadcast(ctx, run_id_);
  holds_earlier_run_ = comm::allreduce(ctx, holds_earlier_run_ ? 1 : 0, comm::Op::max) != 0;
  // Every rank must see the directories (a node-local path would not be shared).
  io::agree_input(ctx, [&] {
    for (const fs::path& d : {r.output_dir, r.checkpoint_dir})
      if (!fs::is_directory(d))
        throw InputError(fmt::format("directory '{}' is not visible on rank {} (is it on a shared file system?)",
                                     d.string(), ctx.rank()));
  });
}

void RunDirectory::accept() {
  if (accepted_) return;
  comm::agree(*ctx_, [&] {
    if (ctx_->is_root()) accept_on_root();
  });
  accepted_ = true;
}

void RunDirectory::accept_on_root() {
  const RunDirectoryRequest& r = request_;
  const fs::path manifest = r.output_dir / kRunManifestFile;
  const std::string previous = fs::exists(manifest) ? read_small_file(manifest) : std::string();
  const fs::path out = absolute_normal(r.output_dir), ck = absolute_normal(r.checkpoint_dir);
  auto resolve = [&](const std::string& name) { return absolute_normal(fs::path(name).is_absolute() ? fs::path(name) : out / name); };

  if (!earlier_.empty()) {
    // --overwrite: exactly the files the earlier run listed as its own (below the output or
    // checkpoint directory: a manifest naming anything else is not followed), their unfinished
    // .tmp copies, and its manifest. Anything else there is the user's and stays.
    std::size_t deleted = 0;
    auto remove_file = [&](const fs::path& p) {
      std::error_code ec;
      if (!fs::is_regular_file(fs::symlink_status(p, ec))) return;
      fs::remove(p, ec);
      if (ec) throw std::runtime_error(fmt::format("--overwrite: cannot delete {}: {}", p.string(), ec.message()));
      ++deleted;
    };
    for (const std::string& name : listed_files(previous)) {
      const fs::path p = resolve(name);
      if (!below(p, out) && !below(p, ck)) continue;
      remove_file(p);
      remove_file(io::temporary_name(p));
    }
    remove_file(manifest);
    std::vector<std::string> kept;
    for (const std::string& e : earlier_)
      if (fs::exists(e)) kept.push_back(fs::path(e).lexically_relative(r.output_dir).string());
    const std::string which = previous.empty() ? std::string("an earlier run")
                                               : fmt::format("an earlier run (run {}, solver {}, started {})",
                                                             field(previous, "run_id"), field(previous, "solver"),
                                                             field(previous, "started"));
    log::info("--overwrite: deleted {} file(s) of {} in {}", deleted, which, r.output_dir.string());
    if (!kept.empty())
      log::warn("--overwrite: kept {} file(s) {} does not list as its own: {}", kept.size(),
                previous.empty() ? std::string("no tessera_run.toml") : std::string("that run's tessera_run.toml"),
                fmt::join(kept, ", "));
  }

  const fs::path lock = r.output_dir / kRunLockFile;
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, identity_.data(), identity_.size(), 0) < 0)
    log::warn("could not record this run in {}: {}", lock.string(), std::strerror(errno));

  // A restart continues the earlier run's files, so its list carries on.
  std::string text = fmt::format(
      "# The identity of the tessera run that last started in this directory, and below it\n"
      "# the files it (and the runs it continues) published: --overwrite deletes those.\n"
      "{}solver = {}\nranks = {}\nrestart = {}\ncommand = {}\n",
      identity_, toml_quoted(r.solver), ctx_->size(), r.restart ? "true" : "false", toml_quoted(r.command_line));
  std::vector<std::string> names = r.restart ? listed_files(previous) : std::vector<std::string>();
  names.insert(names.end(), unwritten_.begin(), unwritten_.end());  // published before accept()
  own_.clear();
  for (const std::string& name : names)
    if (own_.insert(name).second) text += file_entry(name);
  io::publish_text_file(manifest, text);
  wrote_manifest_ = true;
  unwritten_.clear();
}

// Appends a published file to the manifest (rank 0; once per file).
void RunDirectory::record(const fs::path& published) {
  const fs::path p = absolute_normal(published), out = absolute_normal(output_dir_);
  if (p.filename() == kRunManifestFile && p.parent_path() == out) return;
  const std::string name = below(p, out) ? p.lexically_relative(out).string() : p.string();
  if (!own_.insert(name).second) return;
  if (!wrote_manifest_) {  // before accept(): written with the manifest
    unwritten_.push_back(name);
    return;
  }
  const std::string entry = file_entry(name);
  const fs::path manifest = output_dir_ / kRunManifestFile;
  const int fd = ::open(manifest.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  const bool ok = fd >= 0 && ::write(fd, entry.data(), entry.size()) == static_cast<ssize_t>(entry.size());
  const int err = errno;
  if (fd >= 0) ::close(fd);
  // Unrecorded, the file survives a later --overwrite: never lost, at worst kept.
  if (!ok) log::warn("could not record {} in {}: {}", name, manifest.string(), std::strerror(err));
}

RunDirectory::~RunDirectory() {
  if (observing_) io::set_publish_observer({});
  if (std::uncaught_exceptions() > uncaught_at_start_) undo_failed_start();
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing the descriptor releases the flock
}

// A failed start: undo what this class did (rank 0 did it all), but only while nothing else
// is there. Before accept() that is the lock file it created and the directories it created
// (when empty); after, also the manifest while it is the only file left.
void RunDirectory::undo_failed_start() {
  if (!ctx_->is_root()) return;
  std::error_code ec;
  if (created_checkpoint_dir_ && fs::is_empty(checkpoint_dir_, ec)) fs::remove(checkpoint_dir_, ec);
  if (!accepted_) {
    if (created_lock_ && lock_fd_ >= 0) fs::remove(output_dir_ / kRunLockFile, ec);  // still ours until closed
    else if (wrote_lock_ && lock_fd_ >= 0 &&
             (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, lock_before_.data(), lock_before_.size(), 0) < 0))
      log::warn("could not restore {}: {}", (output_dir_ / kRunLockFile).string(), std::strerror(errno));
    if (created_output_dir_ && fs::is_empty(output_dir_, ec)) fs::remove(output_dir_, ec);
    return;
  }
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

std::optional<fs::path> newest_checkpoint(comm::Context& ctx, const fs::path& dir) {
  std::string newest;
  io::agree_input(ctx, [&] {
    if (!ctx.is_root()) return;
    std::error_code ec;
    std::int64_t best = -1;
    if (!fs::is_directory(dir, ec)) return;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (!e.is_regular_file()) continue;
      if (const auto step = io::checkpoint_step(e.path()); step && *step > best) {
        best = *step;
        newest = e.path().string();
      }
    }
    if (ec) throw InputError(fmt::format("cannot list the checkpoint directory '{}': {}", dir.string(), ec.message()));
  });
  comm::broadcast(ctx, newest);
  if (newest.empty()) return std::nullopt;
  return fs::path(newest);
}

}  // namespace tessera::app
