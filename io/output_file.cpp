#include "io/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "comm/errors.hpp"
#include "core/log.hpp"
#include "io/agree.hpp"
#include "io/publish_hook.hpp"
#include "io/verify.hpp"

namespace tessera::io {
std::string publication_failure(const std::filesystem::path& path, std::string_view cause) {
  const std::string head = fmt::format("writing {} failed, the file was not published: ", path.string());
  if (cause.starts_with(head)) return std::string(cause);
  const std::string space = free_space_note(path);
  return space.empty() ? head + std::string(cause) : fmt::format("{}{}; {}", head, cause, space);
}

namespace {
std::string not_published(const std::filesystem::path& path, std::string_view cause) {
  return publication_failure(path, cause);
}
}  // namespace

std::filesystem::path temporary_name(const std::filesystem::path& final_path) {
  std::filesystem::path tmp = final_path;
  tmp += ".tmp";
  return tmp;
}

void sync_path(const std::filesystem::path& p, bool directory) {
  const int fd = ::open(p.c_str(), O_RDONLY | (directory ? O_DIRECTORY : 0));
  if (fd < 0) {
    if (directory) return;
    throw std::runtime_error(fmt::format("cannot open {} to sync it: {}", p.string(), std::strerror(errno)));
  }
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && !(directory && (err == EINVAL || err == EROFS)))
    throw std::runtime_error(fmt::format("cannot sync {}: {}", p.string(), std::strerror(err)));
}

void publish_text_file(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path tmp = temporary_name(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", tmp.string(), std::strerror(errno)));
  std::size_t done = 0;
  int err = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  std::error_code ec;
  if (err == 0) {
    std::filesystem::rename(tmp, path, ec);
    if (!ec) {
      notify_published(path);  // the run directory records it as this run's (io/publish_hook.hpp)
      return;
    }
  }
  const std::string cause = err ? std::strerror(err) : ec.message();
  std::filesystem::remove(tmp, ec);
  throw std::runtime_error(not_published(path, cause));
}

OutputFile::OutputFile(comm::Context& ctx, std::filesystem::path final_path)
    : ctx_(&ctx), final_(std::move(final_path)), tmp_(temporary_name(final_)),
      uncaught_at_start_(std::uncaught_exceptions()) {
  file_.emplace(File::create(ctx, tmp_));
  root_.emplace(file_->root());
}

OutputFile::OutputFile(comm::Context& ctx, std::filesystem::path final_path, Copy)
    : ctx_(&ctx), final_(std::move(final_path)), tmp_(temporary_name(final_)),
      uncaught_at_start_(std::uncaught_exceptions()) {
  comm::agree(ctx, [&] {
    if (!ctx.is_root()) return;
    std::error_code ec;
    std::filesystem::copy_file(final_, tmp_, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) {
      std::filesystem::remove(tmp_, ec);
      throw std::runtime_error(fmt::format("cannot copy {} to {} to extend it: {}; {}", final_.string(),
                                           tmp_.string(), ec.message(), free_space_note(final_)));
    }
  });
  file_.emplace(File::open(ctx, tmp_, Mode::read_write));
  root_.emplace(file_->root());
}

OutputFile OutputFile::modify(comm::Context& ctx, std::filesystem::path final_path) {
  return OutputFile(ctx, std::move(final_path), Copy{});
}

OutputFile::OutputFile(OutputFile&& o) noexcept
    : ctx_(o.ctx_), final_(std::move(o.final_)), tmp_(std::move(o.tmp_)), file_(std::move(o.file_)),
      root_(std::move(o.root_)), committed_(o.committed_), uncaught_at_start_(o.uncaught_at_start_) {
  o.file_.reset();
  o.root_.reset();
  o.committed_ = true;  // the moved-from object owns nothing
}

const Group& OutputFile::root() const {
  if (!root_) throw std::logic_error(fmt::format("output {} was already committed or abandoned", final_.string()));
  return *root_;
}

void OutputFile::close_on_all_ranks() {
  root_.reset();
  // Flush (MPI_File_sync on every rank, so each reports its own write errors), then close.
  // When one of these fails on some ranks only, HDF5 has already left the others inside one
  // of its own collective calls (its MPI-IO driver returns on error before the barrier it
  // shares with them), so no agreement is possible: the error goes straight up and the job is
  // ended (comm::run_guarded). The id is given up unclosed (closing is collective and would
  // wait for ranks that never come); the final name has not been touched.
  File f = std::move(*file_);
  file_.reset();
  try {
    f.flush();
  } catch (const std::exception& e) {
    f.release();
    throw std::runtime_error(not_published(final_, e.what()));
  }
  try {
    f.close();  // gives the id up before H5Fclose, so a failed close leaves nothing to close
  } catch (const std::exception& e) {
    throw std::runtime_error(not_published(final_, e.what()));
  }
}

std::filesystem::path OutputFile::commit(const std::function<void(const Group&)>& check) {
  if (!file_) throw std::logic_error(fmt::format("output {} was already committed or abandoned", final_.string()));
  close_on_all_ranks();
  try {
    agree_input(*ctx_, [&] { verify_checksums(*ctx_, tmp_, check); });
    comm::agree(*ctx_, [&] {
      if (!ctx_->is_root()) return;
      sync_path(tmp_, false);
      std::error_code ec;
      std::filesystem::rename(tmp_, final_, ec);  // rename(2): atomic, replaces an older file of this name
      if (ec)
        throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp_.string(), final_.string(), ec.message()));
      notify_published(final_);  // the run directory records it as this run's (io/publish_hook.hpp)
      sync_path(final_.parent_path().empty() ? std::filesystem::path(".") : final_.parent_path(), true);
    });
  } catch (const comm::CollectiveError& e) {
    fail_agreed(e.failed_rank(), e.what());
  } catch (const comm::AgreedInputError& e) {
    // The read-back found what was written damaged ("... is corrupted"): a failed write, not
    // bad input.
    fail_agreed(e.failed_rank(), e.what());
  }
  committed_ = true;
  return final_;
}

void OutputFile::fail_agreed(int failed_rank, std::string_view cause) {
  // Agreed on every rank: remove the unfinished file and say what happened, with the space
  // left (the commonest cause), as a run-time failure (exit 1) on every rank.
  if (ctx_->is_root()) {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
  file_.reset();
  committed_ = true;  // nothing left to discard
  throw comm::CollectiveError(failed_rank, ExitCode::runtime_error, not_published(final_, cause));
}

void OutputFile::abandon() {
  if (!file_) return;
  close_on_all_ranks();
  comm::agree(*ctx_, [&] {
    if (!ctx_->is_root()) return;
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot remove {}: {}", tmp_.string(), ec.message()));
  });
}

OutputFile::~OutputFile() {
  if (committed_ || !file_) return;
  if (std::uncaught_exceptions() > uncaught_at_start_) {
    // Unwinding: other ranks may be elsewhere, so nothing collective. The id is given up for
    // HDF5 to close at MPI_Finalize; the name is removed.
    root_.reset();
    file_->release();
    file_.reset();
    if (ctx_->is_root()) {
      std::error_code ec;
      std::filesystem::remove(tmp_, ec);
    }
    return;
  }
  try {
    abandon();
  } catch (const std::exception& e) {
    log::error("could not discard unfinished output {}: {}", tmp_.string(), e.what());
  }
}

}  // namespace tessera::io
