#include "solvers/fdtd/waveform.hpp"

#include <cmath>
#include <stdexcept>

#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {

double Waveform::operator()(double t) const {
  switch (kind) {
    case WaveformKind::gaussian: {
      const double u = (t - delay) / width;
      return std::exp(-u * u);
    }
    case WaveformKind::modulated_gaussian: {
      const double u = (t - delay) / width;
      return std::exp(-u * u) * std::sin(2 * kPi * frequency * (t - delay));
    }
    case WaveformKind::ricker: {
      const double a = kPi * frequency * (t - delay);
      return (1 - 2 * a * a) * std::exp(-a * a);
    }
    case WaveformKind::continuous: {
      const double r = t <= 0 ? 0.0 : t >= ramp ? 1.0 : 0.5 * (1 - std::cos(kPi * t / ramp));
      return r * std::sin(2 * kPi * frequency * t);
    }
  }
  return 0;
}

WaveformKind parse_waveform(const std::string& name) {
  if (name == "gaussian") return WaveformKind::gaussian;
  if (name == "modulated_gaussian") return WaveformKind::modulated_gaussian;
  if (name == "ricker") return WaveformKind::ricker;
  if (name == "continuous") return WaveformKind::continuous;
  throw std::logic_error("unknown waveform " + name);  // the schema allows only these
}

}  // namespace tessera::fdtd
