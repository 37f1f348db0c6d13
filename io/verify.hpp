#pragma once
// Reading a file back after writing it: the proof that what has a final name is whole.
//
// MPI-IO does not always report a failed write: Open MPI's collective writers print
// "No space left on device" on the aggregating rank and return success, so HDF5 and tessera
// see nothing. Every file tessera publishes (io/output_file.hpp) is therefore re-read before
// it gets its final name: every dataset that carries a checksum (io/checked_io.hpp) is read
// again, split over the ranks by rows, and its checksum recomputed and compared.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "comm/context.hpp"
#include "io/h5_file.hpp"

namespace tessera::io {

// Collective. Opens `file` read-only and verifies every checksummed dataset in it. Returns
// how many were verified. Throws InputError on every rank naming the file and the dataset
// when the file cannot be opened or a checksum does not match. Reads at most ~64 MiB per
// rank at a time. `check`, when given, runs on the same open file afterwards (a checkpoint's
// manifest), so a published file is opened once to verify it.
std::int64_t verify_checksums(comm::Context& ctx, const std::filesystem::path& file,
                              const std::function<void(const Group&)>& check = {});

// "12.3 MB free of 1.0 GB" for the file system holding `path` (or "" when statvfs fails):
// what a message about a failed write should tell the user.
std::string free_space_note(const std::filesystem::path& path);

}  // namespace tessera::io
