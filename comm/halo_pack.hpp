#pragma once
// Internal to HaloExchange: copies a 3D box of the ghosted array layout (comm/halo.hpp) of
// several fields to or from one contiguous buffer. Host versions in halo_pack.cpp (OpenMP),
// device versions in halo_pack.cu (one kernel launch per box for all fields).
//
// Buffer layout: field-major, then z, y, x (x fastest), so a box of `c` cells of field f
// starts at byte f * c * elem_size. Sender and receiver use the same order, so a packed send
// box unpacks into the receiver's ghost box of the same extents.
#include <array>
#include <cstddef>
#include <cstdint>

#include "core/stream.hpp"

namespace tessera::comm::detail {

// The strides of the ghosted array, in elements.
struct HaloGeometry {
  std::int64_t pitch = 0;     // elements per x row
  std::int64_t rows = 0;      // rows per z plane
  std::size_t elem_size = 0;  // bytes per element: 1, 2, 4, 8 or 16
};

// A box in ghosted-array coordinates: cell (0, 0, 0) is the first ghost cell of the array
// (interior index -g on every axis).
struct HaloBox {
  std::array<std::int64_t, 3> lo{};
  std::array<std::int64_t, 3> extent{};
  std::int64_t cells() const { return extent[0] * extent[1] * extent[2]; }
};

inline bool supported_elem_size(std::size_t s) { return s == 1 || s == 2 || s == 4 || s == 8 || s == 16; }

// Host memory. `fields` holds `count` array pointers; `buffer` holds count * box.cells() elements.
void pack_host(const HaloGeometry& geo, const HaloBox& box, const void* const* fields, int count, void* buffer);
void unpack_host(const HaloGeometry& geo, const HaloBox& box, void* const* fields, int count, const void* buffer);

#if defined(TESSERA_HAVE_CUDA)
// Device memory, ordered on `stream`. Field pointers and the buffer must be aligned to
// elem_size (cudaMalloc memory is). Launch errors throw CudaError.
void pack_device(const HaloGeometry& geo, const HaloBox& box, const void* const* fields, int count, void* buffer,
                 stream_t stream);
void unpack_device(const HaloGeometry& geo, const HaloBox& box, void* const* fields, int count, const void* buffer,
                   stream_t stream);
#endif

}  // namespace tessera::comm::detail
