// The staged transport: device buffers travel through pinned host buffers, so it works with any
// MPI. start() queues the device->pinned copies of the sends on the caller's stream, posts the
// receives and returns (the caller launches interior work meanwhile); finish() waits for those
// copies only (not for later work on the stream), sends, waits, and queues pinned->device
// copies of the receives on the stream.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "comm/errors.hpp"
#include "comm/transport.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"

namespace tessera::comm {

#if defined(TESSERA_HAVE_CUDA)
namespace {

constexpr std::size_t kAlign = 256;
std::size_t align_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// One pinned staging area with the events that say when it may be reused. A slot is taken by
// one exchange at a time; it returns to the pool when the pinned->device copies that drain it
// have completed, so a new exchange never receives into bytes still being copied out.
struct StagingSlot {
  PinnedBuffer<std::byte> buffer;
  Event sends_staged;   // the device->pinned copies of the sends are done
  Event recvs_drained;  // the pinned->device copies of the receives are done
  bool in_use = false;
};

// Staging slots, grown as needed and reused across exchanges. In the steady state (one
// exchange per step) two slots alternate: one drains while the next fills.
class StagingPool {
 public:
  StagingSlot* acquire(std::size_t bytes) {
    StagingSlot* reusable = nullptr;
    for (auto& slot : slots_) {
      if (slot->in_use || !slot->recvs_drained.done()) continue;
      if (slot->buffer.bytes() >= bytes) return take(*slot);
      if (!reusable) reusable = slot.get();
    }
    if (!reusable) reusable = slots_.emplace_back(std::make_unique<StagingSlot>()).get();
    // Grow by half again at least, so slowly growing messages do not reallocate every time.
    const std::size_t grown = std::max(bytes, reusable->buffer.bytes() + reusable->buffer.bytes() / 2);
    reusable->buffer = PinnedBuffer<std::byte>();  // free first: pinned memory is precious
    reusable->buffer = PinnedBuffer<std::byte>(grown);
    return take(*reusable);
  }

 private:
  static StagingSlot* take(StagingSlot& slot) {
    slot.in_use = true;
    return &slot;
  }
  std::vector<std::unique_ptr<StagingSlot>> slots_;
};

// A message between the pinned slot and MPI.
struct Staged {
  std::size_t offset = 0;  // in the slot
  std::byte* pinned = nullptr;
  void* device = nullptr;
  std::size_t bytes = 0;
  int peer = 0;
  int tag = 0;
};

class StagedExchange final : public Exchange {
 public:
  StagedExchange(Context& ctx, MPI_Comm comm, stream_t stream, StagingSlot* slot, std::vector<Staged> sends,
                 std::vector<Staged> recvs, std::vector<MPI_Request> requests)
      : ctx_(ctx), comm_(comm), stream_(stream), slot_(slot), sends_(std::move(sends)), recvs_(std::move(recvs)),
        requests_(std::move(requests)) {}

  // An exchange dropped without finish() keeps its slot: receives may still land in it.
  void finish() override {
    if (!slot_) return;
    slot_->sends_staged.synchronize();
    for (const Staged& m : sends_)
      detail::post_send(m.pinned, m.bytes, m.peer, m.tag, comm_, &requests_.emplace_back());
    if (!requests_.empty()) wait_all(ctx_, static_cast<int>(requests_.size()), requests_.data());
    requests_.clear();
    for (const Staged& m : recvs_)
      if (m.bytes > 0) TESSERA_CUDA_CHECK(cudaMemcpyAsync(m.device, m.pinned, m.bytes, cudaMemcpyDefault, stream_));
    slot_->recvs_drained.record(stream_);
    slot_->in_use = false;
    slot_ = nullptr;
  }

 private:
  Context& ctx_;
  MPI_Comm comm_;
  stream_t stream_;
  StagingSlot* slot_;
  std::vector<Staged> sends_, recvs_;
  std::vector<MPI_Request> requests_;
};

class StagedTransport final : public Transport {
 public:
  explicit StagedTransport(Context& ctx) : ctx_(ctx), comm_(ctx.world()) {}
  TransportKind kind() const override { return TransportKind::staged; }
  Memory memory() const override { return Memory::device; }

  std::unique_ptr<Exchange> start(std::span<const Message> sends, std::span<const Message> recvs,
                                  stream_t stream) override {
    const int me = ctx_.rank();
    const auto self = detail::plan_self_copies(me, ctx_.size(), sends, recvs);

    // Lay the messages out in one slot: sends, then receives, each 256-byte aligned.
    std::vector<Staged> staged_sends, staged_recvs;
    std::size_t total = 0;
    const auto place = [&](const Message& m, std::vector<Staged>& out) {
      out.push_back({total, nullptr, m.data, m.bytes, m.peer, m.tag});
      total += align_up(m.bytes);
    };
    for (const Message& m : sends)
      if (m.peer != me) place(m, staged_sends);
    for (const Message& m : recvs)
      if (m.peer != me) place(m, staged_recvs);
    StagingSlot* slot = pool_.acquire(total);
    for (auto* list : {&staged_sends, &staged_recvs})
      for (Staged& m : *list) m.pinned = slot->buffer.data() + m.offset;

    std::vector<MPI_Request> requests;
    requests.reserve(staged_sends.size() + staged_recvs.size());
    for (const Staged& m : staged_recvs)
      detail::post_recv(m.pinned, m.bytes, m.peer, m.tag, comm_.get(), &requests.emplace_back());
    for (const Staged& m : staged_sends)
      if (m.bytes > 0) TESSERA_CUDA_CHECK(cudaMemcpyAsync(m.pinned, m.device, m.bytes, cudaMemcpyDefault, stream));
    slot->sends_staged.record(stream);
    for (const detail::SelfCopy& c : self)
      if (c.bytes > 0) TESSERA_CUDA_CHECK(cudaMemcpyAsync(c.dst, c.src, c.bytes, cudaMemcpyDefault, stream));
    return std::make_unique<StagedExchange>(ctx_, comm_.get(), stream, slot, std::move(staged_sends),
                                            std::move(staged_recvs), std::move(requests));
  }

 private:
  Context& ctx_;
  detail::DupComm comm_;
  StagingPool pool_;
};

}  // namespace

std::unique_ptr<Transport> detail::make_staged_transport(Context& ctx) {
  return std::make_unique<StagedTransport>(ctx);
}
#else
std::unique_ptr<Transport> detail::make_staged_transport(Context&) {
  throw std::logic_error("the staged transport needs CUDA, and this tessera was built without it");
}
#endif

}  // namespace tessera::comm
