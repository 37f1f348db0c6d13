#include <fmt/format.h>

#include "io/agree.hpp"
#include "io/checkpoint.hpp"
#include "io/metadata_walk.hpp"

namespace tessera::io {

CheckpointReader::CheckpointReader(comm::Context& ctx, const std::filesystem::path& path,
                                   std::string_view expected_solver, int max_format_version)
    : path_(path) {
  agree_input(ctx, [&] {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      throw InputError(fmt::format("checkpoint {} does not exist (seen from rank {})", path.string(), ctx.rank()));
  });
  try {
    file_.emplace(File::open(ctx, path, Mode::read));
  } catch (const InputError& e) {
    // File's messages start with the path ("X is truncated or not an HDF5 file ..."): say what X is.
    const std::string what = e.what();
    if (what.starts_with(path.string())) comm::rethrow_input(e, "checkpoint " + what);
    throw;
  }
  // Every rank reads the same file, so every rank reaches the same verdict; agreeing anyway
  // costs one allreduce and guarantees no rank is left behind. Damaged HDF5 metadata is found
  // here, by one walk over all of it, rather than part-way through the solver's restart.
  agree_input(ctx, [&] {
    try {
      root_.emplace(file_->root());
      walk_metadata(*root_);
    } catch (const H5Error& e) {
      throw InputError(fmt::format("checkpoint {} is corrupted: {}", path.string(), e.what()));
    }
    manifest_ = read_manifest(*root_);
    if (manifest_.solver != expected_solver)
      throw InputError(fmt::format("checkpoint {} was written by solver '{}', this run is '{}'", path.string(),
                                   manifest_.solver, expected_solver));
    if (manifest_.format_version > max_format_version)
      throw InputError(fmt::format("checkpoint {} has format version {}, newer than version {} that this tessera "
                                   "reads for solver '{}' (written by tessera {}); restart it with that version",
                                   path.string(), manifest_.format_version, max_format_version, manifest_.solver,
                                   manifest_.tessera_version));
  });
}

void CheckpointReader::close() {
  root_.reset();
  if (file_) {
    File f = std::move(*file_);
    file_.reset();
    f.close();
  }
}

}  // namespace tessera::io
