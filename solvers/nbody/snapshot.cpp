#include "solvers/nbody/snapshot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "solvers/nbody/code_units.hpp"
#include "solvers/nbody/h5_rows.hpp"
#include "solvers/nbody/memory.hpp"

namespace tessera::nbody {
namespace {

constexpr int kTypes = 6;  // GADGET particle types 0..5; tessera writes type 1 (collisionless)
constexpr int kPartType = 1;

// Edge of a cube centred on the origin that holds every body strictly inside: a power of two
// (at least 1), so that the shifted coordinates x + box / 2 lie in (0, box) after rounding.
template <class T>
double box_size(comm::Context& ctx, const HostBodies<T>& b) {
  double extent = 0;
  for (const auto& p : b.pos_mass)
    extent = std::max({extent, std::abs(double(p.x)), std::abs(double(p.y)), std::abs(double(p.z))});
  extent = comm::allreduce(ctx, extent, comm::Op::max);
  double box = 1;
  while (box <= 2 * extent * (1 + 1e-9) && std::isfinite(extent)) box *= 2;
  return box;
}

// SWIFT's and GADGET's header attributes. Code = "SWIFT" names the layout (yt's SwiftDataset
// reads the units from /Units and puts the domain at [0, BoxSize]^3); Shift is SWIFT's record
// of what was added to the positions (tessera's own readers subtract it).
void write_header(const io::Group& root, std::int64_t n_total, double time, double box, bool double_precision) {
  const io::Group h = root.create_group("Header");
  io::write_attribute(h, "Code", "SWIFT");
  io::write_attribute(h, "RunName", "tessera nbody");
  io::write_attribute(h, "Shift", std::vector<double>(3, box / 2));
  const auto n = static_cast<std::uint64_t>(n_total);
  std::vector<std::uint64_t> this_file(kTypes, 0);
  std::vector<std::uint32_t> total(kTypes, 0), high(kTypes, 0);
  this_file[kPartType] = n;
  total[kPartType] = static_cast<std::uint32_t>(n & 0xffffffffull);
  high[kPartType] = static_cast<std::uint32_t>(n >> 32);
  io::write_attribute(h, "NumPart_ThisFile", this_file);
  io::write_attribute(h, "NumPart_Total", total);
  io::write_attribute(h, "NumPart_Total_HighWord", high);
  io::write_attribute(h, "MassTable", std::vector<double>(kTypes, 0.0));  // individual masses
  io::write_attribute(h, "Time", time);
  io::write_attribute(h, "Redshift", 0.0);
  io::write_attribute(h, "Scale-factor", 1.0);
  io::write_attribute(h, "BoxSize", std::vector<double>(3, box));  // SWIFT's: one edge per axis
  io::write_attribute(h, "NumFilesPerSnapshot", std::int32_t{1});
  io::write_attribute(h, "Dimension", std::int32_t{3});
  io::write_attribute(h, "Omega0", 0.0);
  io::write_attribute(h, "OmegaLambda", 0.0);  // yt: not cosmological
  io::write_attribute(h, "HubbleParam", 1.0);
  for (const char* flag : {"Flag_Sfr", "Flag_Cooling", "Flag_StellarAge", "Flag_Metals", "Flag_Feedback",
                           "Flag_Entropy_ICs"})
    io::write_attribute(h, flag, std::int32_t{0});
  io::write_attribute(h, "Flag_DoublePrecision", std::int32_t{double_precision ? 1 : 0});
}

// The unit system, consistent with G (units.hpp), in SWIFT's names (what yt and pynbody read)
// and GADGET's, in /Units and, as SWIFT does, /InternalCodeUnits.
void write_unit_groups(const io::Group& root, const UnitParams& u) {
  for (const char* name : {"Units", "InternalCodeUnits"}) {
    const io::Group g = root.create_group(name);
    io::write_attribute(g, "Unit length in cgs (U_L)", u.length_in_cm);
    io::write_attribute(g, "Unit mass in cgs (U_M)", u.mass_in_g);
    io::write_attribute(g, "Unit time in cgs (U_t)", u.time_in_s);
    io::write_attribute(g, "Unit current in cgs (U_I)", 1.0);
    io::write_attribute(g, "Unit temperature in cgs (U_T)", 1.0);
    io::write_attribute(g, "UnitLength_in_cm", u.length_in_cm);
    io::write_attribute(g, "UnitMass_in_g", u.mass_in_g);
    io::write_attribute(g, "UnitVelocity_in_cm_per_s", u.velocity_in_cm_per_s);
    io::write_attribute(g, "UnitTime_in_s", u.time_in_s);
  }
}

// The groups yt's SwiftDataset opens (and SWIFT writes): an isolated, non-cosmological,
// gravity-only run.
void write_swift_groups(const io::Group& root) {
  io::write_attribute(root.create_group("RuntimePars"), "PeriodicBoundariesOn", std::int32_t{0});
  const io::Group policy = root.create_group("Policy");
  io::write_attribute(policy, "cosmological integration", std::int32_t{0});
  io::write_attribute(policy, "self gravity", std::int32_t{1});
  io::write_attribute(policy, "hydro", std::int32_t{0});
  const io::Group cosmology = root.create_group("Cosmology");
  io::write_attribute(cosmology, "Cosmological run", std::int32_t{0});
  io::write_attribute(cosmology, "Scale-factor", 1.0);
  io::write_attribute(cosmology, "Redshift", 0.0);
  io::write_attribute(root.create_group("HydroScheme"), "Scheme", "none (gravity only)");
  io::write_attribute(root.create_group("SubgridScheme"), "Scheme", "none");
}

void write_parameters(const io::Group& root, const SnapshotInfo& info) {
  const io::Group g = root.create_group("Parameters");
  io::write_attribute(g, "tessera_deck", std::string_view(info.deck_text));
  io::write_attribute(g, "GravityConstantInternal", info.G);
  io::write_attribute(g, "SofteningLength", info.eps);
}

}  // namespace

std::string snapshot_name(std::int64_t index) { return fmt::format("snapshot_{:04d}.h5", index); }

template <class T>
void write_snapshot(comm::Context& ctx, const std::filesystem::path& path, const SnapshotInfo& info,
                    const HostBodies<T>& bodies, Range range, std::int64_t n_total) {
  const double box = box_size(ctx, bodies);
  const double shift = box / 2;  // a power of two
  const std::size_t n = bodies.size();
  // Coordinates in [0, box], in double precision whatever T is: a float plus the shift is then
  // exact (unless the float is nonzero and below 2^-29 of the box), so reading a single-
  // precision snapshot back gives the positions to the last bit.
  std::vector<double> x(3 * n);
  std::vector<T> v(3 * n), m(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = bodies.pos_mass[i];
    const auto& q = bodies.vel[i];
    x[3 * i] = double(p.x) + shift, x[3 * i + 1] = double(p.y) + shift, x[3 * i + 2] = double(p.z) + shift;
    v[3 * i] = q.x, v[3 * i + 1] = q.y, v[3 * i + 2] = q.z;
    m[i] = p.w;
  }
  // Published only whole: written as path.tmp, read back and verified, then renamed.
  io::OutputFile file(ctx, path);
  {
    const io::Group& root = file.root();
    write_header(root, n_total, info.time, box, sizeof(T) == 8);
    write_unit_groups(root, info.units);
    write_swift_groups(root);
    write_parameters(root, info);
    const io::Group pt = root.create_group(fmt::format("PartType{}", kPartType));
    write_rows3<double>(pt, "Coordinates", x, range.begin, n_total);
    write_rows3<T>(pt, "Velocities", v, range.begin, n_total);
    io::write_1d_checked<T>(pt, "Masses", m, range.begin, n_total);
    io::write_1d_checked<std::uint64_t>(pt, "ParticleIDs", bodies.ids, range.begin, n_total);
    // Every dataset's unit (io/units.hpp) and the root's provenance (io/provenance.hpp).
    const CodeUnits u = code_units(info.units);
    io::write_units(pt.open_dataset("Coordinates"), u.length);
    io::write_units(pt.open_dataset("Velocities"), u.velocity);
    io::write_units(pt.open_dataset("Masses"), u.mass);
    io::write_units(pt.open_dataset("ParticleIDs"), io::kDimensionless);
    io::write_provenance(root, info.provenance);
  }
  file.commit();
}

template <class T>
SnapshotData<T> read_snapshot(comm::Context& ctx, const std::filesystem::path& path, int part_type,
                              std::string_view where) {
  SnapshotData<T> out;
  const io::File file = [&] {
    try {
      return io::File::open(ctx, path);
    } catch (const InputError& e) {
      comm::rethrow_input(e, fmt::format("{}: {}", where, e.what()));  // name the key that asked for it
    }
  }();
  const io::Group root = file.root();
  const std::string group = fmt::format("PartType{}", part_type);
  const std::string file_name = path.string();
  if (!root.exists(group))
    throw InputError(fmt::format("{}: snapshot {} has no group /{} (the bodies to read; see nbody.file.part_type)",
                                 where, file_name, group));
  const io::Group pt = root.open_group(group);
  for (const char* name : {"Coordinates", "Velocities"})
    if (!pt.exists(name))
      throw InputError(fmt::format("{}: snapshot {} has no dataset /{}/{}", where, file_name, group, name));
  const std::vector<std::int64_t> shape = io::dataset_extent(pt, "Coordinates");
  if (shape.size() != 2 || shape[1] != 3 || shape[0] < 1)
    throw InputError(fmt::format("{}: /{}/Coordinates in {} has shape [{}], expected (N, 3) with N >= 1", where,
                                 group, file_name, fmt::join(shape, ", ")));
  out.n_total = shape[0];
  comm::require_memory(
      ctx, false, [n = double(out.n_total)](double ranks) { return bodies_memory<T>(n, ranks, false); },
      fmt::format("{}: snapshot {} holds {} bodies", where, file_name, out.n_total));
  if (io::dataset_extent(pt, "Velocities") != shape)
    throw InputError(fmt::format("{}: /{}/Velocities in {} does not match Coordinates ({} rows)", where, group,
                                 file_name, out.n_total));

  // Masses: per body, or one per type in the header's MassTable.
  double table_mass = 0;
  std::array<double, 3> shift{0, 0, 0};
  const bool has_header = root.exists("Header");
  if (has_header) {
    const io::Group h = root.open_group("Header");
    if (io::has_attribute(h, "MassTable")) {
      const auto table = io::read_attribute<std::vector<double>>(h, "MassTable");
      if (static_cast<int>(table.size()) > part_type) table_mass = table[static_cast<std::size_t>(part_type)];
    }
    if (io::has_attribute(h, "Time")) out.time = io::read_attribute<double>(h, "Time");
    // SWIFT's Shift (tessera's snapshots: half the box) was added to the positions: undo it.
    if (io::has_attribute(h, "Shift")) {
      const auto s = io::read_attribute<std::vector<double>>(h, "Shift");
      if (s.size() != 3 || !std::isfinite(s[0]) || !std::isfinite(s[1]) || !std::isfinite(s[2]))
        throw InputError(fmt::format("{}: /Header Shift in snapshot {} has {} values, expected 3 finite numbers",
                                     where, file_name, s.size()));
      shift = {s[0], s[1], s[2]};
    }
  }
  const bool per_body_mass = pt.exists("Masses");
  if (!per_body_mass && table_mass <= 0)
    throw InputError(fmt::format("{}: snapshot {} has neither /{}/Masses nor a MassTable[{}] > 0 in /Header", where,
                                 file_name, group, part_type));

  out.range = block_range(out.n_total, ctx.size(), ctx.rank());
  const Range r = out.range;
  // Positions in double, less the shift, then T: exact for what write_snapshot wrote from floats.
  std::vector<double> x = read_rows3<double>(pt, "Coordinates", r.begin, r.count);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] -= shift[i % 3];
  const std::vector<T> v = read_rows3<T>(pt, "Velocities", r.begin, r.count);
  const std::vector<T> m = per_body_mass ? read_1d_as<T>(pt, "Masses", r.begin, r.count)
                                         : std::vector<T>(static_cast<std::size_t>(r.count), static_cast<T>(table_mass));
  std::vector<std::uint64_t> ids;
  if (pt.exists("ParticleIDs")) {
    ids = read_1d_as<std::uint64_t>(pt, "ParticleIDs", r.begin, r.count);
  } else {
    ids.resize(static_cast<std::size_t>(r.count));
    for (std::int64_t i = 0; i < r.count; ++i) ids[i] = static_cast<std::uint64_t>(r.begin + i);
  }
  out.bodies.resize(static_cast<std::size_t>(r.count));
  for (std::int64_t i = 0; i < r.count; ++i) {
    out.bodies.pos_mass[i] = Vec4<T>{T(x[3 * i]), T(x[3 * i + 1]), T(x[3 * i + 2]), m[i]};
    out.bodies.vel[i] = Vec4<T>{v[3 * i], v[3 * i + 1], v[3 * i + 2], T(0)};
    out.bodies.acc[i] = Vec4<T>{0, 0, 0, 0};
    out.bodies.ids[i] = ids[i];
  }
  return out;
}

template void write_snapshot<float>(comm::Context&, const std::filesystem::path&, const SnapshotInfo&,
                                    const HostBodies<float>&, Range, std::int64_t);
template void write_snapshot<double>(comm::Context&, const std::filesystem::path&, const SnapshotInfo&,
                                     const HostBodies<double>&, Range, std::int64_t);
template SnapshotData<float> read_snapshot<float>(comm::Context&, const std::filesystem::path&, int, std::string_view);
template SnapshotData<double> read_snapshot<double>(comm::Context&, const std::filesystem::path&, int,
                                                    std::string_view);

}  // namespace tessera::nbody
