#pragma once
// Graph500's summary statistics of a sample (the reference code's `statistics`): minimum,
// quartiles, median, maximum, mean and standard deviation, and for rates the harmonic mean
// and its standard deviation (TEPS are averaged harmonically: the mean of a rate over
// searches of equal work).
#include <string>
#include <vector>

namespace tessera::bfs {

struct Statistics {
  double min = 0, first_quartile = 0, median = 0, third_quartile = 0, max = 0;
  double mean = 0, stddev = 0;
  double harmonic_mean = 0, harmonic_stddev = 0;
  int count = 0;
};

Statistics summarize(std::vector<double> sample);

// The names of the fields, in Graph500's output order, and their values, for printing and
// for HDF5 attributes.
std::vector<std::string> statistic_names();
std::vector<double> statistic_values(const Statistics& s);

}  // namespace tessera::bfs
