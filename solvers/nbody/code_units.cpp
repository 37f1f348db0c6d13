#include "solvers/nbody/code_units.hpp"

#include <fmt/format.h>

namespace tessera::nbody {

CodeUnits code_units(const UnitParams& u) {
  const double l = u.length_in_cm, m = u.mass_in_g, v = u.velocity_in_cm_per_s, t = l / v;
  const auto unit = [](const char* code, double cgs, const char* cgs_unit) {
    return fmt::format("{} (= {:.6g} {})", code, cgs, cgs_unit);
  };
  CodeUnits c;
  c.length = unit("code_length", l, "cm");
  c.mass = unit("code_mass", m, "g");
  c.velocity = unit("code_velocity", v, "cm/s");
  c.time = unit("code_time", t, "s");
  c.energy = unit("code_mass*code_velocity**2", m * v * v, "erg");
  c.momentum = unit("code_mass*code_velocity", m * v, "g*cm/s");
  c.angular_momentum = unit("code_mass*code_length*code_velocity", m * l * v, "g*cm**2/s");
  c.acceleration = unit("code_velocity/code_time", v / t, "cm/s**2");
  c.potential = unit("code_velocity**2", v * v, "cm**2/s**2");
  return c;
}

}  // namespace tessera::nbody
