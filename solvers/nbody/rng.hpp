#pragma once
// Counter-based random numbers for initial conditions: body i of a run with seed s draws from
// its own splitmix64 stream keyed by (s, i), so any rank generates any body without the others
// and the bodies are the same whatever the number of ranks.
#include <cstdint>

namespace tessera::nbody {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class BodyRandom {
 public:
  BodyRandom(std::uint64_t seed, std::uint64_t index)
      : state_(splitmix64(splitmix64(seed ^ 0x6A09E667F3BCC909ull) ^ splitmix64(index ^ 0xBB67AE8584CAA73Bull))) {}

  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1], for logarithms and negative powers.
  double uniform_positive() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

 private:
  std::uint64_t state_;
};

}  // namespace tessera::nbody
