#pragma once
// The snapshot's (N, 3) datasets (GADGET's Coordinates, Velocities) through io's row blocks,
// and reads that accept whatever numeric type another code wrote (float32 or float64
// coordinates, ParticleIDs as uint32 or uint64, ...).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "io/h5.hpp"

namespace tessera::nbody {

// Collective: rows [offset, offset + local.size() / 3) of a (total, 3) dataset of T, with its
// checksum (io/checked_io.hpp).
template <class T>
void write_rows3(const io::Group& g, std::string_view name, std::span<const T> local, std::int64_t offset,
                 std::int64_t total);

// Collective: rows [offset, offset + count) of a (M, 3) float32 or float64 dataset, as T.
// InputError when the dataset is missing, has another shape or a non-float type.
template <class T>
std::vector<T> read_rows3(const io::Group& g, std::string_view name, std::int64_t offset, std::int64_t count);

// Collective: [offset, offset + count) of a 1D dataset of any integer or float type, as T.
template <class T>
std::vector<T> read_1d_as(const io::Group& g, std::string_view name, std::int64_t offset, std::int64_t count);

}  // namespace tessera::nbody
