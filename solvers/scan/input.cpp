#include "solvers/scan/input.hpp"

#include "io/h5.hpp"

namespace tessera::scan {

DatasetInfo probe_dataset(comm::Context& ctx, const std::string& file, const std::string& dataset) {
  const io::File f = io::File::open(ctx, file);
  const io::Dataset d = f.root().open_dataset(dataset);
  return {d.element_type(), d.extent()};
}

template <class T>
std::vector<T> read_block(comm::Context& ctx, const std::string& file, const std::string& dataset,
                          std::int64_t begin, std::int64_t count) {
  const io::File f = io::File::open(ctx, file);
  return io::read_1d<T>(f.root(), dataset, begin, count);
}

template std::vector<std::int32_t> read_block<std::int32_t>(comm::Context&, const std::string&, const std::string&,
                                                            std::int64_t, std::int64_t);
template std::vector<std::int64_t> read_block<std::int64_t>(comm::Context&, const std::string&, const std::string&,
                                                            std::int64_t, std::int64_t);
template std::vector<float> read_block<float>(comm::Context&, const std::string&, const std::string&, std::int64_t,
                                              std::int64_t);
template std::vector<double> read_block<double>(comm::Context&, const std::string&, const std::string&, std::int64_t,
                                                std::int64_t);

}  // namespace tessera::scan
