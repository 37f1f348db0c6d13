#pragma once
// The unit strings of an N-body run's files (the `units` attributes, io/units.hpp). A run is
// unit-free: its numbers are in code units, which [nbody.units] relates to cgs (the same
// numbers as a snapshot's /Units). Each string names the code unit and its cgs value, e.g.
// "code_length (= 3.0857e+21 cm)"; with the default units every value is 1.
#include <string>

#include "solvers/nbody/params.hpp"

namespace tessera::nbody {

struct CodeUnits {
  std::string length, mass, velocity, time;
  std::string energy;            // mass velocity^2
  std::string momentum;          // mass velocity
  std::string angular_momentum;  // mass length velocity
  std::string acceleration;      // velocity / time
  std::string potential;         // velocity^2 (energy per mass)
};

CodeUnits code_units(const UnitParams& u);

}  // namespace tessera::nbody
