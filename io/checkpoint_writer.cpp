#include <fmt/format.h>

#include "io/agree.hpp"
#include "io/checkpoint.hpp"
#include "io/provenance.hpp"
#include "tessera/version.hpp"

namespace tessera::io {
namespace {

// Collective: creates `dir` (rank 0) and checks that every rank sees it; returns `dir`.
const std::filesystem::path& prepared_directory(comm::Context& ctx, const std::filesystem::path& dir) {
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
  return dir;
}

std::int64_t checked_step(std::int64_t step) {
  if (step < 0) throw std::invalid_argument(fmt::format("checkpoint step {} is negative", step));
  return step;
}

}  // namespace

CheckpointWriter::CheckpointWriter(comm::Context& ctx, std::filesystem::path dir, std::int64_t step,
                                   const CheckpointManifest& m)
    : file_(ctx, checkpoint_path(prepared_directory(ctx, dir), checked_step(step))), manifest_(m) {
  manifest_.step = step;
  manifest_.ranks = ctx.size();
  if (manifest_.tessera_version.empty()) manifest_.tessera_version = fmt::format("{} ({})", kVersion, kGitCommit);
  write_manifest(file_.root(), manifest_);
  write_provenance(file_.root(), {manifest_.solver, manifest_.deck_text});  // like every file tessera writes
}

const Group& CheckpointWriter::root() const { return file_.root(); }

std::filesystem::path CheckpointWriter::commit() {
  return file_.commit([&](const Group& root) {
    const CheckpointManifest back = read_manifest(root);
    if (back.step != manifest_.step || back.solver != manifest_.solver || back.deck_text != manifest_.deck_text)
      throw InputError(fmt::format("the manifest read back from {} differs from the one written", root.file_name()));
  });
}

}  // namespace tessera::io
