// Device pack/unpack of halo boxes: one launch copies a box of every field (up to
// kMaxFieldsPerLaunch per launch) between the ghosted arrays and a contiguous buffer.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "comm/halo_pack.hpp"
#include "core/cuda_check.hpp"

namespace tessera::comm::detail {
namespace {

// Field pointers travel as a kernel argument (no device-side pointer table to keep in sync
// with the host); more fields than this take several launches.
constexpr int kMaxFieldsPerLaunch = 32;
constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 8192;  // enough to fill any current GPU; larger boxes grid-stride

struct FieldPointers {
  void* p[kMaxFieldsPerLaunch];
};

// The element type moved per thread: the widest native load that matches the element.
template <std::size_t N> struct Word;
template <> struct Word<1> { using type = std::uint8_t; };
template <> struct Word<2> { using type = std::uint16_t; };
template <> struct Word<4> { using type = std::uint32_t; };
template <> struct Word<8> { using type = std::uint64_t; };
template <> struct Word<16> { using type = uint4; };  // 16-byte aligned: one vector load

// I is the box index type: 32-bit when it can (faster division), 64-bit otherwise. Array
// offsets are always 64-bit, since a large array can exceed 2^32 elements with a small box.
template <class I>
struct BoxArgs {
  std::int64_t pitch, rows;
  std::int64_t lo0, lo1, lo2;
  I ex, ey, ez;
  I total;  // cells of the box times the fields of this launch
};

// Consecutive threads take consecutive buffer elements, which are consecutive x in the box:
// buffer accesses always coalesce, array accesses coalesce along x rows.
template <class T, class I, bool kPack>
__global__ void __launch_bounds__(kThreads) copy_box(BoxArgs<I> a, FieldPointers fields, T* buffer) {
  const I stride = static_cast<I>(gridDim.x) * blockDim.x;
  for (I idx = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; idx < a.total; idx += stride) {
    const I x = idx % a.ex;
    I r = idx / a.ex;
    const I y = r % a.ey;
    r /= a.ey;
    const I z = r % a.ez;
    const I f = r / a.ez;
    T* array = static_cast<T*>(fields.p[f]);
    const std::int64_t at = ((a.lo2 + static_cast<std::int64_t>(z)) * a.rows + a.lo1 + static_cast<std::int64_t>(y)) *
                                a.pitch +
                            a.lo0 + static_cast<std::int64_t>(x);
    if constexpr (kPack)
      buffer[idx] = array[at];
    else
      array[at] = buffer[idx];
  }
}

template <class T, class I, bool kPack>
void launch_box(const HaloGeometry& geo, const HaloBox& box, const FieldPointers& fields, int count, T* buffer,
                stream_t stream) {
  BoxArgs<I> a{geo.pitch,
               geo.rows,
               box.lo[0],
               box.lo[1],
               box.lo[2],
               static_cast<I>(box.extent[0]),
               static_cast<I>(box.extent[1]),
               static_cast<I>(box.extent[2]),
               static_cast<I>(box.cells() * count)};
  const auto blocks = static_cast<unsigned>(
      std::min<std::int64_t>((static_cast<std::int64_t>(a.total) + kThreads - 1) / kThreads, kMaxBlocks));
  copy_box<T, I, kPack><<<blocks, kThreads, 0, stream>>>(a, fields, buffer);
  TESSERA_CUDA_CHECK_LAUNCH();
}

template <std::size_t N, bool kPack>
void copy_fields(const HaloGeometry& geo, const HaloBox& box, void* const* fields, int count, void* buffer,
                 stream_t stream) {
  using T = typename Word<N>::type;
  const std::int64_t cells = box.cells();
  if (cells == 0 || count == 0) return;
  for (int first = 0; first < count; first += kMaxFieldsPerLaunch) {
    const int n = std::min(kMaxFieldsPerLaunch, count - first);
    FieldPointers fp{};
    std::copy(fields + first, fields + first + n, fp.p);
    T* chunk = static_cast<T*>(buffer) + static_cast<std::int64_t>(first) * cells;
    // 2^31 leaves room for idx + stride without wrapping a 32-bit index.
    if (cells * n < (std::int64_t{1} << 31))
      launch_box<T, std::uint32_t, kPack>(geo, box, fp, n, chunk, stream);
    else
      launch_box<T, std::uint64_t, kPack>(geo, box, fp, n, chunk, stream);
  }
}

template <bool kPack>
void dispatch(const HaloGeometry& geo, const HaloBox& box, void* const* fields, int count, void* buffer,
              stream_t stream) {
  switch (geo.elem_size) {
    case 1: return copy_fields<1, kPack>(geo, box, fields, count, buffer, stream);
    case 2: return copy_fields<2, kPack>(geo, box, fields, count, buffer, stream);
    case 4: return copy_fields<4, kPack>(geo, box, fields, count, buffer, stream);
    case 8: return copy_fields<8, kPack>(geo, box, fields, count, buffer, stream);
    case 16: return copy_fields<16, kPack>(geo, box, fields, count, buffer, stream);
    default: throw std::invalid_argument("halo pack: element size must be 1, 2, 4, 8 or 16 bytes");
  }
}

}  // namespace

void pack_device(const HaloGeometry& geo, const HaloBox& box, const void* const* fields, int count, void* buffer,
                 stream_t stream) {
  // The kernel only reads the arrays when packing; one pointer type serves both directions.
  dispatch<true>(geo, box, const_cast<void* const*>(fields), count, buffer, stream);
}

void unpack_device(const HaloGeometry& geo, const HaloBox& box, void* const* fields, int count, const void* buffer,
                   stream_t stream) {
  // Likewise the buffer is only read when unpacking.
  dispatch<false>(geo, box, fields, count, const_cast<void*>(buffer), stream);
}

}  // namespace tessera::comm::detail
