#pragma once
// The physical unit system of an N-body run. The run itself computes in the deck's numbers;
// these units say what one length, mass, velocity and time unit are in cgs, for snapshots
// (yt, pynbody and other readers turn code units into physical ones with them).
//
// Gravity ties them: with the deck's gravitational constant nbody.G (1 in N-body units),
//     nbody.G = G_cgs * mass_in_g * time_in_s^2 / length_in_cm^3,   velocity = length / time,
// so two of length, mass, velocity and time fix the other two (resolve_units, params.cpp).
// The default is GADGET's: 1 kpc and 1e10 Msun, hence (G = 1) 207.4 km/s and 4.714 Myr.
#include <cmath>

namespace tessera::nbody {

// CODATA 2018 Newtonian constant of gravitation, cm^3 g^-1 s^-2.
inline constexpr double kGravityCgs = 6.67430e-8;
// 1 kpc in cm (IAU 2012: 1 au = 1.495978707e13 cm, 1 pc = 648000 / pi au).
inline constexpr double kKpcInCm = 3.0856775814913673e21;
// The nominal solar mass in g (IAU 2015 GM_sun = 1.3271244e26 cm^3 s^-2 over CODATA 2018 G).
inline constexpr double kSolarMassInG = 1.98841e33;
inline constexpr double kDefaultLengthInCm = kKpcInCm;              // 1 kpc
inline constexpr double kDefaultMassInG = 1e10 * kSolarMassInG;     // 1e10 Msun

// The velocity unit that makes G (in code units) equal `G` for these length and mass units.
inline double velocity_for(double length_in_cm, double mass_in_g, double G) {
  return std::sqrt(kGravityCgs * mass_in_g / (G * length_in_cm));
}

struct UnitParams {
  double length_in_cm = kDefaultLengthInCm;
  double mass_in_g = kDefaultMassInG;
  double velocity_in_cm_per_s = velocity_for(kDefaultLengthInCm, kDefaultMassInG, 1.0);  // 2.0739e7
  double time_in_s = kDefaultLengthInCm / velocity_for(kDefaultLengthInCm, kDefaultMassInG, 1.0);
};

// The unit system with these length and mass units in which the gravitational constant is G
// (> 0): the GADGET default with G = 1 for UnitParams{}.
inline UnitParams units_from_length_mass(double length_in_cm, double mass_in_g, double G) {
  UnitParams u;
  u.length_in_cm = length_in_cm;
  u.mass_in_g = mass_in_g;
  u.velocity_in_cm_per_s = velocity_for(length_in_cm, mass_in_g, G);
  u.time_in_s = length_in_cm / u.velocity_in_cm_per_s;
  return u;
}

}  // namespace tessera::nbody
