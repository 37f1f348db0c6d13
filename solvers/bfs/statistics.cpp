#include "solvers/bfs/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace tessera::bfs {

Statistics summarize(std::vector<double> x) {
  Statistics s;
  const auto n = static_cast<int>(x.size());
  s.count = n;
  if (n == 0) return s;
  std::sort(x.begin(), x.end());
  s.min = x[0];
  s.max = x[n - 1];
  s.first_quartile = 0.5 * (x[(n - 1) / 4] + x[n / 4]);
  s.median = 0.5 * (x[(n - 1) / 2] + x[n / 2]);
  s.third_quartile = 0.5 * (x[n - 1 - (n - 1) / 4] + x[n - 1 - n / 4]);
  // The harmonic statistics cover the searches that traversed edges: a search with rate 0 (a
  // root without edges, which Graph500 never picks) has no finite reciprocal.
  double sum = 0, inverse_sum = 0;
  int positive = 0;
  for (double v : x) {
    sum += v;
    if (v > 0) {
      inverse_sum += 1.0 / v;
      ++positive;
    }
  }
  s.mean = sum / n;
  s.harmonic_mean = positive > 0 ? positive / inverse_sum : 0.0;
  if (n > 1) {
    double squares = 0;
    for (double v : x) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / (n - 1));
  }
  if (positive > 1) {
    double inverse_squares = 0;
    const double inverse_mean = inverse_sum / positive;
    for (double v : x)
      if (v > 0) inverse_squares += (1.0 / v - inverse_mean) * (1.0 / v - inverse_mean);
    // Graph500: the deviation of the reciprocals, scaled back to the rate.
    s.harmonic_stddev = std::sqrt(inverse_squares) / (positive - 1) * s.harmonic_mean * s.harmonic_mean;
  }
  return s;
}

std::vector<std::string> statistic_names() {
  return {"min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev", "harmonic_mean",
          "harmonic_stddev"};
}

std::vector<double> statistic_values(const Statistics& s) {
  return {s.min, s.first_quartile, s.median, s.third_quartile, s.max, s.mean, s.stddev, s.harmonic_mean,
          s.harmonic_stddev};
}

}  // namespace tessera::bfs
