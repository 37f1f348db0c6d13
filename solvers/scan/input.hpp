#pragma once
// The scan's HDF5 input: what a dataset holds, and each rank's block of it (parallel reads).
#include <cstdint>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "io/h5_types.hpp"

namespace tessera::scan {

struct DatasetInfo {
  io::ElementType type = io::ElementType::other;
  std::vector<std::int64_t> extent;  // slowest dimension first
};

// Collective. InputError (the io layer's message: missing file, not HDF5, missing dataset) on
// every rank when it cannot be opened.
DatasetInfo probe_dataset(comm::Context& ctx, const std::string& file, const std::string& dataset);

// Collective: elements [begin, begin + count) of the 1-D dataset, which must hold exactly T.
template <class T>
std::vector<T> read_block(comm::Context& ctx, const std::string& file, const std::string& dataset,
                          std::int64_t begin, std::int64_t count);

}  // namespace tessera::scan
