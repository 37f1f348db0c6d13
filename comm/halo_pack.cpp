#include "comm/halo_pack.hpp"

#include <cstring>

namespace tessera::comm::detail {
namespace {

// Below this many bytes a box is copied by one thread: waking a thread team costs more than
// copying a few face rows.
constexpr std::int64_t kParallelBytes = std::int64_t{1} << 18;

// Calls copy(array_byte_offset, buffer_byte_offset, row_bytes, field) for every x row of the
// box. Rows are contiguous in both the array and the buffer, so each is a single memcpy.
template <class Copy>
void for_each_row(const HaloGeometry& geo, const HaloBox& box, int count, Copy&& copy) {
  const auto es = static_cast<std::int64_t>(geo.elem_size);
  const std::int64_t ny = box.extent[1], nz = box.extent[2];
  const std::int64_t row_bytes = box.extent[0] * es;
  const std::int64_t rows = count * nz * ny;
  if (row_bytes == 0 || rows == 0) return;
#pragma omp parallel for schedule(static) if (rows * row_bytes >= kParallelBytes)
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t y = r % ny, z = (r / ny) % nz;
    const int f = static_cast<int>(r / (ny * nz));
    const std::int64_t elem = ((box.lo[2] + z) * geo.rows + box.lo[1] + y) * geo.pitch + box.lo[0];
    copy(elem * es, r * row_bytes, row_bytes, f);
  }
}

}  // namespace

void pack_host(const HaloGeometry& geo, const HaloBox& box, const void* const* fields, int count, void* buffer) {
  auto* out = static_cast<unsigned char*>(buffer);
  for_each_row(geo, box, count, [&](std::int64_t at, std::int64_t to, std::int64_t bytes, int f) {
    std::memcpy(out + to, static_cast<const unsigned char*>(fields[f]) + at, static_cast<std::size_t>(bytes));
  });
}

void unpack_host(const HaloGeometry& geo, const HaloBox& box, void* const* fields, int count, const void* buffer) {
  const auto* in = static_cast<const unsigned char*>(buffer);
  for_each_row(geo, box, count, [&](std::int64_t at, std::int64_t from, std::int64_t bytes, int f) {
    std::memcpy(static_cast<unsigned char*>(fields[f]) + at, in + from, static_cast<std::size_t>(bytes));
  });
}

}  // namespace tessera::comm::detail
