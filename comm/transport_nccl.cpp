// The nccl transport: ncclSend/ncclRecv on a communicator bootstrapped over MPI. Transfers run
// on the transport's own stream, which first waits for the caller's stream; finish() only makes
// the caller's stream wait for them, so the host never blocks here.
//
// NCCL has no tags: between two ranks, the k-th send matches the k-th receive. Both sides
// therefore issue their messages sorted by (peer, tag), which pairs them as tags would.
#include <stdexcept>

#include "comm/transport.hpp"

#if defined(TESSERA_HAVE_NCCL) && defined(TESSERA_HAVE_CUDA)
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/cuda_check.hpp"
#endif

namespace tessera::comm {

#if defined(TESSERA_HAVE_NCCL) && defined(TESSERA_HAVE_CUDA)
namespace {

std::string nccl_error(ncclResult_t result, const char* call, const char* file, int line) {
  std::string text = fmt::format("NCCL error '{}' in {} at {}:{}", ncclGetErrorString(result), call, file, line);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
  if (const char* last = ncclGetLastError(nullptr); last && *last) text += fmt::format(" ({})", last);
#endif
  return text;
}

#define TESSERA_NCCL_CHECK(call)                                                               \
  do {                                                                                         \
    const ncclResult_t tessera_nccl_ = (call);                                                 \
    if (tessera_nccl_ != ncclSuccess)                                                          \
      throw std::runtime_error(nccl_error(tessera_nccl_, #call, __FILE__, __LINE__));          \
  } while (0)

class NcclExchange final : public Exchange {
 public:
  NcclExchange(stream_t caller, std::unique_ptr<Event> done) : caller_(caller), done_(std::move(done)) {}
  void finish() override {
    if (done_) done_->make_wait(caller_);
    done_.reset();
  }

 private:
  stream_t caller_;
  std::unique_ptr<Event> done_;  // recorded on the transport's stream after the group
};

class NcclTransport final : public Transport {
 public:
  explicit NcclTransport(Context& ctx) : ctx_(ctx) {
    ncclUniqueId id{};
    agree(ctx, [&] {
      if (ctx.is_root()) TESSERA_NCCL_CHECK(ncclGetUniqueId(&id));
    });
    broadcast(ctx, std::span<char>(id.internal, sizeof id.internal));
    // ncclCommInitRank is collective: agree on its outcome, so no rank goes on alone.
    const ncclResult_t result = ncclCommInitRank(&comm_, ctx.size(), id, ctx.rank());
    try {
      all_ok(ctx, result == ncclSuccess,
             result == ncclSuccess ? std::string() : nccl_error(result, "ncclCommInitRank", __FILE__, __LINE__));
    } catch (...) {
      if (comm_) (void)ncclCommAbort(comm_);  // others failed: do not wait for them in a destroy
      throw;
    }
  }

  ~NcclTransport() override {
    if (!comm_) return;
    (void)cudaStreamSynchronize(stream_);  // nothing of ours may still run on the communicator
    (void)ncclCommDestroy(comm_);
  }

  TransportKind kind() const override { return TransportKind::nccl; }
  Memory memory() const override { return Memory::device; }

  std::unique_ptr<Exchange> start(std::span<const Message> sends, std::span<const Message> recvs,
                                  stream_t stream) override {
    const int me = ctx_.rank();
    const auto self = detail::plan_self_copies(me, ctx_.size(), sends, recvs);
    ready_.record(stream);
    ready_.make_wait(stream_);
    for (const detail::SelfCopy& c : self)
      if (c.bytes > 0) TESSERA_CUDA_CHECK(cudaMemcpyAsync(c.dst, c.src, c.bytes, cudaMemcpyDefault, stream_));

    // Empty messages are skipped on both sides (a receive has exactly the bytes of its send).
    const auto ordered = [me](std::span<const Message> messages) {
      std::vector<const Message*> out;
      for (const Message& m : messages)
        if (m.peer != me && m.bytes > 0) out.push_back(&m);
      std::stable_sort(out.begin(), out.end(), [](const Message* a, const Message* b) {
        return std::tie(a->peer, a->tag) < std::tie(b->peer, b->tag);
      });
      return out;
    };
    const auto to_send = ordered(sends), to_recv = ordered(recvs);
    if (!to_send.empty() || !to_recv.empty()) {
      TESSERA_NCCL_CHECK(ncclGroupStart());
      try {
        for (const Message* m : to_send)
          TESSERA_NCCL_CHECK(ncclSend(m->data, m->bytes, ncclUint8, m->peer, comm_, stream_));
        for (const Message* m : to_recv)
          TESSERA_NCCL_CHECK(ncclRecv(m->data, m->bytes, ncclUint8, m->peer, comm_, stream_));
      } catch (...) {
        (void)ncclGroupEnd();  // never leave this thread inside a group
        throw;
      }
      TESSERA_NCCL_CHECK(ncclGroupEnd());
    }
    auto done = std::make_unique<Event>();
    done->record(stream_);
    return std::make_unique<NcclExchange>(stream, std::move(done));
  }

 private:
  Context& ctx_;
  Stream stream_{StreamPriority::high};  // the transfers' own stream, ahead of queued compute
  Event ready_;  // the caller's stream reached start(); reused (consumed at once)
  ncclComm_t comm_ = nullptr;
};

}  // namespace

std::unique_ptr<Transport> detail::make_nccl_transport(Context& ctx) { return std::make_unique<NcclTransport>(ctx); }
#else
std::unique_ptr<Transport> detail::make_nccl_transport(Context&) {
  throw std::logic_error("the nccl transport needs NCCL and CUDA, and this tessera was built without them");
}
#endif

}  // namespace tessera::comm
