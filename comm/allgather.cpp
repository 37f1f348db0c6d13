#include "comm/allgather.hpp"

#include <vector>

namespace tessera::comm {

void allgather_blocks(Context& ctx, Transport& transport, stream_t stream, std::byte* base,
                      std::span<const std::int64_t> offsets, std::span<const std::int64_t> lengths, int tag) {
  const int p = ctx.size(), me = ctx.rank();
  if (p == 1) return;
  std::vector<Message> sends, recvs;
  for (int r = 0; r < p; ++r) {
    if (r == me) continue;
    if (lengths[me] > 0) sends.push_back({base + offsets[me], static_cast<std::size_t>(lengths[me]), r, tag});
    if (lengths[r] > 0) recvs.push_back({base + offsets[r], static_cast<std::size_t>(lengths[r]), r, tag});
  }
  transport.start(sends, recvs, stream)->finish();
}

void allgather_equal_blocks(Context& ctx, Transport& transport, stream_t stream, std::byte* base, std::size_t block,
                            int tag) {
  std::vector<std::int64_t> offsets, lengths;
  for (int r = 0; r < ctx.size(); ++r) {
    offsets.push_back(static_cast<std::int64_t>(block) * r);
    lengths.push_back(static_cast<std::int64_t>(block));
  }
  allgather_blocks(ctx, transport, stream, base, offsets, lengths, tag);
}

}  // namespace tessera::comm
