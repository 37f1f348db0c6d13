#include "io/checksum.hpp"

#include <algorithm>
#include <cstring>

namespace tessera::io {

std::uint64_t checksum_bytes(const void* data, std::int64_t count, std::size_t element_size,
                             std::int64_t first_element) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  const std::uint64_t words_per_element = (element_size + 7) / 8;
  std::uint64_t sum = 0;
  for (std::int64_t e = 0; e < count; ++e) {
    const unsigned char* elem = bytes + static_cast<std::size_t>(e) * element_size;
    const std::uint64_t first_word = static_cast<std::uint64_t>(first_element + e) * words_per_element;
    for (std::uint64_t j = 0; j < words_per_element; ++j) {
      // Little-endian load of up to 8 bytes, zero-padded (the value, not the host's padding).
      const std::size_t n = std::min<std::size_t>(8, element_size - j * 8);
      std::uint64_t w = 0;
      for (std::size_t b = 0; b < n; ++b) w |= static_cast<std::uint64_t>(elem[j * 8 + b]) << (8 * b);
      sum += checksum_term(first_word + j, w);
    }
  }
  return sum;
}

std::uint64_t checksum_bytes_3d(const void* data, std::size_t element_size, const Box3& box, const Strided3& mem) {
  if (box.empty()) return 0;
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint64_t sum = 0;
  for (std::int64_t k = 0; k < box.size[2]; ++k) {
    for (std::int64_t j = 0; j < box.size[1]; ++j) {
      const std::int64_t global_first =
          ((box.offset[2] + k) * box.global[1] + (box.offset[1] + j)) * box.global[0] + box.offset[0];
      const unsigned char* row = bytes + static_cast<std::size_t>(mem.index(0, j, k)) * element_size;
      sum += checksum_bytes(row, box.size[0], element_size, global_first);
    }
  }
  return sum;
}

}  // namespace tessera::io
