#pragma once
// comm::allgather_blocks: an in-place allgatherv on a transport, for the solvers' small
// device-side gathers (the BFS frontier bitmap and trees, the scan's block totals): rank r's
// bytes [offsets[r], offsets[r] + lengths[r]) of `base` go to the same place on every other
// rank, in the transport's memory (host or device). Collective; complete when it returns
// (received data is visible to work queued on `stream` afterwards; host memory: at once).
// Zero-length blocks are skipped on both sides.
#include <cstddef>
#include <cstdint>
#include <span>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "core/stream.hpp"

namespace tessera::comm {

void allgather_blocks(Context& ctx, Transport& transport, stream_t stream, std::byte* base,
                      std::span<const std::int64_t> offsets, std::span<const std::int64_t> lengths, int tag);

// Blocks of `block` bytes, rank r's at base + r * block.
void allgather_equal_blocks(Context& ctx, Transport& transport, stream_t stream, std::byte* base, std::size_t block,
                            int tag);

}  // namespace tessera::comm
