#pragma once
// SI constants of vacuum (CODATA 2018: c0 exact, mu0 from the measured fine-structure constant).
namespace tessera::fdtd {

inline constexpr double kC0 = 299792458.0;             // m/s
inline constexpr double kMu0 = 1.25663706212e-6;       // H/m
inline constexpr double kEps0 = 1.0 / (kMu0 * kC0 * kC0);  // F/m
inline constexpr double kEta0 = kMu0 * kC0;            // ohm, impedance of free space
inline constexpr double kPi = 3.14159265358979323846;

}  // namespace tessera::fdtd
