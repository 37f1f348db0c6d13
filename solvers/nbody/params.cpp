#include "solvers/nbody/params.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "core/deck/deck.hpp"
#include "core/error.hpp"

namespace tessera::nbody {

deck::Schema nbody_schema() {
  deck::Schema s;
  s.table("nbody", "all-pairs gravitational N-body (ring-pass of body blocks over the ranks)")
      .integer("n", "number of bodies (required unless ic = \"file\", where it must match the snapshot)")
      .min(1)
      .optional()
      .choice("ic", "initial conditions", {"plummer", "uniform", "galaxies", "file"})
      .default_value("plummer")
      .integer("seed", "random seed of the initial conditions (same bodies on any number of ranks)")
      .min(0)
      .default_value(42)
      .floating("G", "gravitational constant")
      .min(0)
      .default_value(1.0)
      .floating("eps", "Plummer softening length: a = G m r / (r^2 + eps^2)^(3/2)")
      .unit("length")
      .min(0)
      .default_value(0.01)
      .floating("dt", "time step")
      .unit("time")
      .greater_than(0)
      .default_value(0.01)
      .floating("total_mass", "total mass of the generated bodies (each has total_mass / n)")
      .unit("mass")
      .greater_than(0)
      .default_value(1.0)
      .choice("integrator", "kick-drift-kick leapfrog (symplectic), or the seeds' v += a dt; x += v dt",
              {"leapfrog", "euler"})
      .default_value("leapfrog")
      .choice("precision", "floating-point type of the state and the kernels", {"single", "double"})
      .default_value("single");
  s.table("nbody.plummer", "ic = \"plummer\" (and each galaxy of ic = \"galaxies\"): Aarseth-Henon-Wielen sampling")
      .floating("virial_radius", "virial radius (1 in N-body units; the Plummer scale length is 3 pi / 16 of it)")
      .unit("length")
      .greater_than(0)
      .default_value(1.0);
  s.table("nbody.uniform", "ic = \"uniform\": the seeds' random cube (no centre-of-mass correction)")
      .floating("half_width", "positions uniform in [-half_width, half_width]^3")
      .unit("length")
      .greater_than(0)
      .default_value(1.0)
      .floating("max_speed", "velocity components uniform in [-max_speed, max_speed]")
      .unit("length/time")
      .min(0)
      .default_value(1.0);
  s.table("nbody.galaxies", "ic = \"galaxies\": two Plummer spheres on a collision orbit")
      .floating("mass_ratio", "mass of the second sphere over the first (bodies of equal mass)")
      .greater_than(0)
      .max(1)
      .default_value(1.0)
      .floating("separation", "initial distance of the centres along x")
      .unit("length")
      .greater_than(0)
      .default_value(10.0)
      .floating("impact_parameter", "offset of the centres along y")
      .unit("length")
      .min(0)
      .default_value(1.0)
      .floating("speed_factor", "approach speed in units of the parabolic speed sqrt(2 G M / d)")
      .min(0)
      .default_value(1.0);
  s.table("nbody.file", "ic = \"file\": a GADGET/SWIFT-style HDF5 snapshot (tessera's own included)")
      .string("path", "the snapshot file").file()
      .default_value("")
      .integer("part_type", "particle type to read: group /PartType<k>")
      .min(0)
      .max(5)
      .default_value(1);
  s.table("nbody.units",
          "physical units of the run's numbers, written to snapshots (/Units, read by yt): give any two, "
          "nbody.G = G_cgs mass time^2 / length^3 and velocity = length / time fix the others; with fewer "
          "than two, 1 kpc and then 1e10 Msun fill in (G = 1: 207.4 km/s, 4.714 Myr)")
      .floating("length_in_cm", "one length unit in cm (default 1 kpc = 3.0857e21 cm)")
      .greater_than(0)
      .optional()
      .floating("mass_in_g", "one mass unit in g (default 1e10 Msun = 1.98841e43 g)")
      .greater_than(0)
      .optional()
      .floating("velocity_in_cm_per_s", "one velocity unit in cm/s (derived unless given)")
      .greater_than(0)
      .optional()
      .floating("time_in_s", "one time unit in s (derived unless given)")
      .greater_than(0)
      .optional();
  s.table("nbody.cuda", "GPU kernel (0 = chosen from N and the GPU's SM count)")
      .choice("kernel",
              "auto: tiled below 16384 bodies per rank, split from there (double precision: tiled; with group, "
              "split or bodies_per_thread set: tiled); tiled and split are tessera's kernels (deterministic), "
              "seed-naive and seed-atomic the seeds' baselines",
              {"auto", "tiled", "split", "seed-naive", "seed-atomic"})
      .default_value("auto")
      .integer("group", "threads per group (tiled: multiple of 32; split: threads per block of a compiled shape; "
                        "seeds: their BLOCK_SIZE)")
      .min(0)
      .max(1024)
      .default_value(0)
      .integer("split", "groups per block sharing each body's sources (tiled: power of two <= 32; split: blocks per "
                        "body, <= 256; seed-atomic: BLOCK_STRIDE)")
      .min(0)
      .max(4096)
      .default_value(0)
      .integer("bodies_per_thread", "bodies each thread owns (tiled: 1, 2 or 4; split: those of a compiled shape, 1-4 or 8)")
      .min(0)
      .max(8)
      .default_value(0);
  return s;
}

namespace {

InitialConditions parse_ic(const std::string& s) {
  if (s == "uniform") return InitialConditions::uniform;
  if (s == "galaxies") return InitialConditions::galaxies;
  if (s == "file") return InitialConditions::file;
  return InitialConditions::plummer;
}

// [nbody.units]: the keys in the order that picks the two that define the system.
enum UnitKey { kLength, kMass, kVelocity, kTime, kUnitKeys };
constexpr const char* kUnitKeyNames[kUnitKeys] = {"length_in_cm", "mass_in_g", "velocity_in_cm_per_s", "time_in_s"};

// All four units from two of them (a < b), with G > 0 in those units.
UnitParams units_from_pair(UnitKey a, double va, UnitKey b, double vb, double G) {
  double length = 0, mass = 0, velocity = 0, time = 0;
  if (a == kLength) {
    length = va;
    if (b == kMass) velocity = velocity_for(length, vb, G);
    if (b == kVelocity) velocity = vb;
    if (b == kTime) velocity = length / vb;
    mass = G * length * velocity * velocity / kGravityCgs;
  } else if (a == kMass) {
    mass = va;
    if (b == kVelocity) {  // G = G_cgs M / (L V^2)
      velocity = vb;
      length = kGravityCgs * mass / (G * velocity * velocity);
    } else {  // time: G = G_cgs M T^2 / L^3
      length = std::cbrt(kGravityCgs * mass * vb * vb / G);
      velocity = length / vb;
    }
  } else {  // velocity and time
    velocity = va;
    length = va * vb;
    mass = G * length * velocity * velocity / kGravityCgs;
  }
  time = b == kTime ? vb : length / velocity;
  return UnitParams{length, mass, velocity, time};
}

double unit_value(const UnitParams& u, int k) {
  switch (k) {
    case kLength: return u.length_in_cm;
    case kMass: return u.mass_in_g;
    case kVelocity: return u.velocity_in_cm_per_s;
    default: return u.time_in_s;
  }
}

}  // namespace

UnitParams resolve_units(const deck::Config& d, double G) {
  const auto key = [](int k) { return fmt::format("nbody.units.{}", kUnitKeyNames[k]); };
  std::optional<double> given[kUnitKeys];
  for (int k = 0; k < kUnitKeys; ++k)
    if (d.has(key(k))) given[k] = d.get_double(key(k));
  const double defaults[2] = {kDefaultLengthInCm, kDefaultMassInG};

  UnitParams u;
  int from[2] = {-1, -1};  // the keys the system was derived from
  if (G > 0) {
    // The first two keys given; with fewer, the default length and then the default mass.
    std::optional<double> pick[kUnitKeys];
    int picked = 0;
    for (int k = 0; k < kUnitKeys && picked < 2; ++k)
      if (given[k]) pick[k] = given[k], ++picked;
    for (int k = 0; k < 2 && picked < 2; ++k)
      if (!pick[k]) pick[k] = defaults[k], ++picked;
    for (int k = 0, n = 0; k < kUnitKeys; ++k)
      if (pick[k]) from[n++] = k;
    u = units_from_pair(UnitKey(from[0]), *pick[from[0]], UnitKey(from[1]), *pick[from[1]], G);
  } else {
    // No gravity, no tie between mass and the rest: velocity = length / time only.
    u.length_in_cm = given[kLength].value_or(kDefaultLengthInCm);
    u.mass_in_g = given[kMass].value_or(kDefaultMassInG);
    u.velocity_in_cm_per_s = given[kVelocity]   ? *given[kVelocity]
                             : given[kTime]     ? u.length_in_cm / *given[kTime]
                                                : velocity_for(u.length_in_cm, u.mass_in_g, 1.0);
    u.time_in_s = u.length_in_cm / u.velocity_in_cm_per_s;
    from[0] = kLength, from[1] = given[kVelocity] || !given[kTime] ? kVelocity : kTime;
  }
  // Every other key given must agree with the system the two made.
  for (int k = 0; k < kUnitKeys; ++k) {
    if (!given[k] || k == from[0] || k == from[1]) continue;
    const double want = unit_value(u, k);
    if (std::abs(*given[k] - want) <= 1e-3 * want) continue;
    const auto source = [&](int j) {
      return given[j] ? fmt::format("{} = {:g}", key(j), *given[j])
                      : fmt::format("the default {} = {:g}", key(j), unit_value(u, j));
    };
    throw InputError(fmt::format(
        "{}: {} = {:g} contradicts the other units: with nbody.G = {:g}, {} and {} make it {:.6g} (G = G_cgs "
        "mass time^2 / length^3 with G_cgs = {:g} cm^3 g^-1 s^-2, velocity = length / time). Give only two of "
        "length_in_cm, mass_in_g, velocity_in_cm_per_s and time_in_s, or values that agree within 1e-3",
        d.where(key(k)), key(k), *given[k], G, source(from[0]), source(from[1]), want, kGravityCgs));
  }
  return u;
}

Params params_from_deck(const deck::Config& d) {
  Params p;
  if (d.has("nbody.n")) p.n = d.get_int("nbody.n");
  p.ic = parse_ic(d.get_string("nbody.ic"));
  p.seed = static_cast<std::uint64_t>(d.get_int("nbody.seed"));
  p.G = d.get_double("nbody.G");
  p.eps = d.get_double("nbody.eps");
  p.dt = d.get_double("nbody.dt");
  p.total_mass = d.get_double("nbody.total_mass");
  p.integrator = d.get_string("nbody.integrator") == "euler" ? Integrator::euler : Integrator::leapfrog;
  p.double_precision = d.get_string("nbody.precision") == "double";
  p.plummer.virial_radius = d.get_double("nbody.plummer.virial_radius");
  p.uniform.half_width = d.get_double("nbody.uniform.half_width");
  p.uniform.max_speed = d.get_double("nbody.uniform.max_speed");
  p.galaxies.mass_ratio = d.get_double("nbody.galaxies.mass_ratio");
  p.galaxies.separation = d.get_double("nbody.galaxies.separation");
  p.galaxies.impact_parameter = d.get_double("nbody.galaxies.impact_parameter");
  p.galaxies.speed_factor = d.get_double("nbody.galaxies.speed_factor");
  p.file.path = d.get_string("nbody.file.path");
  p.file.part_type = static_cast<int>(d.get_int("nbody.file.part_type"));
  p.units = resolve_units(d, p.G);
  p.kernel.variant = parse_kernel_variant(d.get_string("nbody.cuda.kernel"));
  p.kernel.group = static_cast<int>(d.get_int("nbody.cuda.group"));
  p.kernel.split = static_cast<int>(d.get_int("nbody.cuda.split"));
  p.kernel.bodies_per_thread = static_cast<int>(d.get_int("nbody.cuda.bodies_per_thread"));
  // Before "auto" existed (and was the default) these numbers, without a kernel, described a
  // tiled shape: such decks keep their meaning.
  if (p.kernel.variant == KernelVariant::automatic && (p.kernel.group || p.kernel.split || p.kernel.bodies_per_thread))
    p.kernel.variant = KernelVariant::tiled;
  p.diagnostics_every = d.get_int("diagnostics.every");
  p.where_n = d.where("nbody.n");
  p.where_ic = d.where("nbody.ic");
  p.where_file = d.where("nbody.file.path");
  p.where_precision = d.where("nbody.precision");

  if (p.ic == InitialConditions::file) {
    if (p.file.path.empty())
      throw InputError(fmt::format("{}: ic = \"file\" needs nbody.file.path, the snapshot to read", p.where_ic));
  } else if (!p.n) {
    throw InputError(fmt::format("{}: ic = \"{}\" needs nbody.n, the number of bodies", p.where_ic,
                                 d.get_string("nbody.ic")));
  }
  if (p.ic == InitialConditions::galaxies && *p.n < 2)
    throw InputError(fmt::format("{}: ic = \"galaxies\" needs at least 2 bodies, not {}", p.where_n, *p.n));
  if (p.kernel.variant == KernelVariant::tiled) {
    if (p.kernel.group % 32 != 0)
      throw InputError(fmt::format("{}: the tiled kernel's group must be a multiple of 32 (or 0), not {}",
                                   d.where("nbody.cuda.group"), p.kernel.group));
    if (p.kernel.split != 0 && (p.kernel.split > 32 || (p.kernel.split & (p.kernel.split - 1)) != 0))
      throw InputError(fmt::format("{}: the tiled kernel's split must be a power of two up to 32 (or 0), not {}",
                                   d.where("nbody.cuda.split"), p.kernel.split));
    if (p.kernel.bodies_per_thread == 3 || p.kernel.bodies_per_thread > 4)
      throw InputError(fmt::format("{}: the tiled kernel's bodies_per_thread must be 1, 2 or 4 (or 0), not {}",
                                   d.where("nbody.cuda.bodies_per_thread"), p.kernel.bodies_per_thread));
  }
  return p;
}

}  // namespace tessera::nbody
