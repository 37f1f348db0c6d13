#pragma once
// Source time functions. Every parameter is resolved (defaults filled in) when the deck is
// read, so evaluating one is a pure function of t.
#include <string>

namespace tessera::fdtd {

enum class WaveformKind { gaussian, modulated_gaussian, ricker, continuous };

struct Waveform {
  WaveformKind kind = WaveformKind::gaussian;
  double frequency = 0;  // Hz: carrier (modulated, continuous) or peak (ricker)
  double width = 0;      // s: gaussian envelope tau
  double delay = 0;      // s: time of the peak
  double ramp = 0;       // s: continuous wave turn-on

  //  gaussian            exp(-u^2),                     u = (t - delay) / width
  //  modulated_gaussian  exp(-u^2) sin(2 pi f (t - delay))
  //  ricker              (1 - 2 a^2) exp(-a^2),         a = pi f (t - delay)
  //  continuous          r(t) sin(2 pi f t),            r: raised cosine from 0 to 1 over `ramp`
  double operator()(double t) const;
};

WaveformKind parse_waveform(const std::string& name);

}  // namespace tessera::fdtd
