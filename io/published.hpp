#pragma once
// One log line per published file, the same for every solver and the run loop:
//   "wrote output/fields_00000100.h5" (the path relative to the working directory, so it can
//   be pasted into h5ls or ParaView from where the job ran). Rank 0 prints; call it on every
//   rank after the file's commit (or only on rank 0 for a file only rank 0 writes).
#include <filesystem>
#include <string_view>

namespace tessera::io {

// `label` replaces "wrote" where a log already has its own words ("checkpoint written:").
void log_published(const std::filesystem::path& path, std::string_view label = "wrote");

// `path` relative to the working directory when it lies below it, else as given.
std::filesystem::path shown_path(const std::filesystem::path& path);

}  // namespace tessera::io
