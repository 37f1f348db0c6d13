#pragma once
// Provenance: the attributes on the root group of every HDF5 file tessera writes (outputs,
// time series, snapshots, matrices, checkpoints), so any file says where it came from:
//
//   solver           string   the [run] solver ("nbody", "fdtd", "scan", "bfs", "spmv")
//   tessera_version  string   the tessera release ("0.1.0")
//   tessera_commit   string   the git commit it was built from ("unknown" outside a checkout)
//   deck             string   the resolved deck, TOML (every key, defaults included)
//   ranks            int32    the number of MPI ranks that wrote the file
//   created          string   when the file was written, UTC, ISO 8601 ("2025-01-31T12:00:00Z")
//
// Strings are variable-length UTF-8 (h5py reads str). One function writes them all, so the
// files cannot drift apart. Collective.
#include <string>

#include "io/h5_file.hpp"

namespace tessera::io {

struct Provenance {
  std::string solver;
  std::string deck;  // resolved TOML
};

// Collective: writes (replacing) the attributes above on `root`; `created` is rank 0's clock.
void write_provenance(const Group& root, const Provenance& p);

// The attribute names write_provenance writes, in that order (for tests and readers).
inline constexpr const char* kProvenanceAttributes[] = {"solver", "tessera_version", "tessera_commit",
                                                        "deck",   "ranks",           "created"};

}  // namespace tessera::io
