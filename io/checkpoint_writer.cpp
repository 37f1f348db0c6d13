#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "comm/collectives.hpp"
#include "core/log.hpp"
#include "io/agree.hpp"
#include "io/checkpoint.hpp"
#include "tessera/version.hpp"

namespace tessera::io {
namespace {

// Pushes a file's (or directory's) data to stable storage, so that after a crash the renamed
// checkpoint is never an empty or partial file. Directories that cannot be synced are skipped.
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

std::filesystem::path temporary_name(const std::filesystem::path& final_path) {
  std::filesystem::path tmp = final_path;
  tmp += ".tmp";
  return tmp;
}

}  // namespace

CheckpointWriter::CheckpointWriter(comm::Context& ctx, std::filesystem::path dir, std::int64_t step,
                                   const CheckpointManifest& m)
    : ctx_(&ctx), uncaught_at_start_(std::uncaught_exceptions()) {
  if (step < 0) throw std::invalid_argument(fmt::format("checkpoint step {} is negative", step));
  final_ = checkpoint_path(dir, step);
  tmp_ = temporary_name(final_);

  agree_input(ctx, [&] {
    if (!ctx.is_root()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw InputError(fmt::format("cannot create checkpoint directory {}: {}", dir.string(), ec.message()));
  });
  agree_input(ctx, [&] {  // every rank must see it (a node-local path would not be shared)
    if (!std::filesystem::is_directory(dir))
      throw InputError(fmt::format("checkpoint directory {} is not visible on rank {} (is it on a shared file "
                                   "system?)",
                                   dir.string(), ctx.rank()));
  });

  file_.emplace(File::create(ctx, tmp_));
  root_.emplace(file_->root());
  CheckpointManifest full = m;
  full.step = step;
  full.ranks = ctx.size();
  if (full.tessera_version.empty()) full.tessera_version = fmt::format("{} ({})", kVersion, kGitCommit);
  write_manifest(*root_, full);
}

const Group& CheckpointWriter::root() const {
  if (!root_) throw std::logic_error(fmt::format("checkpoint {} was already committed or abandoned", final_.string()));
  return *root_;
}

std::filesystem::path CheckpointWriter::commit() {
  if (!file_) throw std::logic_error(fmt::format("checkpoint {} was already committed or abandoned", final_.string()));
  root_.reset();
  // Every rank closes (collective in HDF5); the agreement doubles as the barrier that makes
  // sure all data is in the file before rank 0 renames it.
  comm::agree(*ctx_, [&] {
    File f = std::move(*file_);
    file_.reset();
    f.close();
  });
  agree_input(*ctx_, [&] {
    if (!ctx_->is_root()) return;
    sync_path(tmp_, false);
    std::error_code ec;
    std::filesystem::rename(tmp_, final_, ec);  // rename(2): atomic, replaces an older file of this step
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot rename {} to {}: {}", tmp_.string(), final_.string(), ec.message()));
    sync_path(final_.parent_path().empty() ? std::filesystem::path(".") : final_.parent_path(), true);
  });
  committed_ = true;
  return final_;
}

void CheckpointWriter::abandon() {
  if (!file_) return;
  root_.reset();
  comm::agree(*ctx_, [&] {
    File f = std::move(*file_);
    file_.reset();
    f.close();
  });
  agree_input(*ctx_, [&] {
    if (!ctx_->is_root()) return;
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot remove {}: {}", tmp_.string(), ec.message()));
  });
}

CheckpointWriter::~CheckpointWriter() {
  if (committed_ || !file_) return;
  if (std::uncaught_exceptions() > uncaught_at_start_) {
    // Unwinding: other ranks may be elsewhere, so no collective call. The file id is given up
    // unclosed (HDF5 closes it at MPI_Finalize, or the job aborts); the name is removed.
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
    log::error("could not discard unfinished checkpoint {}: {}", tmp_.string(), e.what());
  }
}

}  // namespace tessera::io
