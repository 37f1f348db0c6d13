#pragma once
// The [nbody] deck tables (schema) and their values, read and checked once when the solver is
// created. Every check names the deck key (deck.where) in its InputError.
#include <cstdint>
#include <optional>
#include <string>

#include "core/deck/config.hpp"
#include "core/deck/schema.hpp"
#include "solvers/nbody/forces.hpp"
#include "solvers/nbody/units.hpp"

namespace tessera::nbody {

enum class InitialConditions { plummer, uniform, galaxies, file };
enum class Integrator { leapfrog, euler };

struct PlummerParams {
  double virial_radius = 1.0;
};
struct UniformParams {
  double half_width = 1.0;
  double max_speed = 1.0;
};
struct GalaxiesParams {
  double mass_ratio = 1.0;        // M2 / M1
  double separation = 10.0;       // initial distance of the centres along x
  double impact_parameter = 1.0;  // offset along y
  double speed_factor = 1.0;      // relative speed in units of the parabolic (escape) speed
};
struct FileParams {
  std::string path;
  int part_type = 1;
};

struct Params {
  std::optional<std::int64_t> n;  // absent: taken from the snapshot (ic = file)
  InitialConditions ic = InitialConditions::plummer;
  std::uint64_t seed = 42;
  double G = 1.0;
  double eps = 0.01;
  double dt = 0.01;
  double total_mass = 1.0;
  Integrator integrator = Integrator::leapfrog;
  bool double_precision = false;
  PlummerParams plummer;
  UniformParams uniform;
  GalaxiesParams galaxies;
  FileParams file;
  UnitParams units;     // resolved: consistent with G (resolve_units)
  KernelConfig kernel;  // zeros: chosen per N and GPU
  std::int64_t diagnostics_every = 0;  // [diagnostics] every: the steps that also compute potentials
  std::string deck_text;               // the resolved deck, stored in snapshots
  std::string where_n, where_ic, where_file, where_precision;  // for messages raised later (ic = file)
};

deck::Schema nbody_schema();
// Reads and checks the [nbody] tables of a validated deck; InputError naming the key.
Params params_from_deck(const deck::Config& deck);
// The [nbody.units] of a validated deck, completed from the two keys given first (in the
// order length, mass, velocity, time; fewer than two: 1 kpc, then 1e10 Msun fill in) so that
// the gravitational constant in these units is G. A further key that disagrees by more than
// 1e-3 is an InputError naming it. G = 0 ties nothing: length and mass as given or by default,
// velocity from velocity_in_cm_per_s or length / time_in_s, else as if G were 1.
UnitParams resolve_units(const deck::Config& deck, double G);

}  // namespace tessera::nbody
