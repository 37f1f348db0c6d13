#pragma once
// Touches every piece of HDF5 metadata below a group: each object's header, each attribute,
// each dataset's layout and (chunked) chunk index. HDF5 verifies the checksum of every
// metadata block it loads, so damage anywhere in the file's structure shows up here, at one
// point that every rank reaches (the walk is the same on every rank), instead of in the middle
// of a solver's restart. Raw data is not read: the datasets' own checksums cover it.
#include "io/h5_file.hpp"

namespace tessera::io {

// Collective (with collective metadata reads, every rank must walk). H5Error naming the
// object whose metadata could not be read.
void walk_metadata(const Group& root);

}  // namespace tessera::io
