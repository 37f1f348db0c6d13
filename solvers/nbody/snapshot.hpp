#pragma once
// Snapshots in the SWIFT HDF5 layout (GADGET-4's names where the two agree), which yt loads
// with no arguments (SwiftDataset: units from /Units, domain [0, BoxSize]^3) and which
// ic = "file" reads back:
//   /Header      attributes Code ("SWIFT"), RunName, Shift, NumPart_ThisFile, NumPart_Total,
//                NumPart_Total_HighWord, MassTable, Time, Redshift, Scale-factor, BoxSize (3),
//                NumFilesPerSnapshot, Dimension, Omega0, OmegaLambda, HubbleParam, Flag_*
//                (Flag_DoublePrecision set for double runs)
//   /PartType1   Coordinates (N, 3, float64, in [0, BoxSize]), Velocities (N, 3), Masses (N),
//                ParticleIDs (N, uint64)
//   /Units, /InternalCodeUnits   the unit system in cgs (SWIFT and GADGET attribute names),
//                consistent with G (units.hpp)
//   /RuntimePars, /Policy, /Cosmology, /HydroScheme, /SubgridScheme   SWIFT's run flags: not
//                periodic, not cosmological, gravity only
//   /Parameters  the resolved deck (attribute tessera_deck), G and eps
//   /            the provenance attributes of every tessera file (io/provenance.hpp); each
//                dataset has its `units` (code units, solvers/nbody/code_units.hpp)
// Bodies are isolated (no periodic box) and centred near the origin: BoxSize is the edge of a
// cube centred on the origin that holds every body, a power of two, and the positions are
// written shifted by half of it (Shift = BoxSize / 2 on each axis), so they lie in the box
// yt assumes. read_snapshot subtracts any /Header Shift.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "comm/context.hpp"
#include "core/partition.hpp"
#include "io/provenance.hpp"
#include "solvers/nbody/params.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

struct SnapshotInfo {
  double time = 0;
  double G = 1;
  double eps = 0;
  UnitParams units;
  std::string deck_text;
  io::Provenance provenance;  // root attributes (io/provenance.hpp)
};

// Collective: writes `path` through `path`.tmp and a rename (rank 0) once every rank has
// closed it, so an interrupted write never leaves a snapshot that looks complete.
template <class T>
void write_snapshot(comm::Context& ctx, const std::filesystem::path& path, const SnapshotInfo& info,
                    const HostBodies<T>& bodies, Range range, std::int64_t n_total);

template <class T>
struct SnapshotData {
  std::int64_t n_total = 0;
  Range range;        // this rank's block of the file's bodies
  double time = 0;    // /Header Time (0 when absent)
  HostBodies<T> bodies;  // accelerations zero
};

// Collective: reads /PartType<part_type> of a snapshot, block-partitioned over the ranks, in
// the frame of the run that wrote it (less /Header Shift when there is one).
// Masses come from the Masses dataset or, failing that, MassTable[part_type] > 0;
// ParticleIDs are optional (index order). A missing file, group or dataset is an InputError
// starting with `where` (the deck key that named the file).
template <class T>
SnapshotData<T> read_snapshot(comm::Context& ctx, const std::filesystem::path& path, int part_type,
                              std::string_view where);

// "snapshot_0007.h5"
std::string snapshot_name(std::int64_t index);

}  // namespace tessera::nbody
