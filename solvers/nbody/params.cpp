#include "solvers/nbody/params.hpp"

#include <fmt/format.h>

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
      .string("path", "the snapshot file")
      .default_value("")
      .integer("part_type", "particle type to read: group /PartType<k>")
      .min(0)
      .max(5)
      .default_value(1);
  s.table("nbody.units", "physical units written to snapshots (/Units); the run itself is unit-free")
      .floating("length_in_cm", "one length unit in cm")
      .greater_than(0)
      .default_value(1.0)
      .floating("mass_in_g", "one mass unit in g")
      .greater_than(0)
      .default_value(1.0)
      .floating("velocity_in_cm_per_s", "one velocity unit in cm/s")
      .greater_than(0)
      .default_value(1.0);
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

}  // namespace

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
  p.units.length_in_cm = d.get_double("nbody.units.length_in_cm");
  p.units.mass_in_g = d.get_double("nbody.units.mass_in_g");
  p.units.velocity_in_cm_per_s = d.get_double("nbody.units.velocity_in_cm_per_s");
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
