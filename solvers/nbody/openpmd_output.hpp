#pragma once
// The bodies as an openPMD 1.1.0 particle species (io/openpmd.hpp), [output] openpmd = true:
// <dir>/nbody_<step>.h5 (file-based, iterationFormat "nbody_%T.h5"), species "bodies" at
// /data/<step>/particles/bodies/ with
//   position/{x,y,z}        float64, the run's frame (no SWIFT Shift), unitSI = length unit in m
//   positionOffset/{x,y,z}  constant 0 (the standard requires the record)
//   velocity/{x,y,z}        the run's precision, unitSI = velocity unit in m/s
//   mass                    the run's precision, unitSI = mass unit in kg
//   id                      uint64, the snapshot's ParticleIDs
// The units are the SWIFT snapshot's /Units (cgs) in SI; the iteration's time is in code time
// units with timeUnitSI = the time unit in s. Collective.
#include <cstdint>
#include <filesystem>

#include "comm/context.hpp"
#include "core/partition.hpp"
#include "solvers/nbody/units.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

struct OpenPmdStep {
  std::int64_t step = 0;
  double time = 0;  // code units
  double dt = 0;    // code units
  UnitParams units;
};

template <class T>
void write_openpmd_bodies(comm::Context& ctx, const std::filesystem::path& dir, const OpenPmdStep& at,
                          const HostBodies<T>& bodies, Range range, std::int64_t n_total);

}  // namespace tessera::nbody
