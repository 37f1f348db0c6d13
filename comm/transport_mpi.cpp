// The mpi transport: CUDA-aware MPI moves device buffers directly (GPUDirect where the fabric
// has it). MPI does not follow CUDA streams, so start() first waits for the work queued on the
// caller's stream: it may still produce the sends or read the receive buffers.
#include <stdexcept>
#include <vector>

#include "comm/transport.hpp"
#include "core/cuda_check.hpp"

namespace tessera::comm {

#if defined(TESSERA_HAVE_CUDA)
namespace {

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(Context& ctx) : ctx_(ctx), comm_(ctx.world()) {}
  TransportKind kind() const override { return TransportKind::mpi; }
  Memory memory() const override { return Memory::device; }

  std::unique_ptr<Exchange> start(std::span<const Message> sends, std::span<const Message> recvs,
                                  stream_t stream) override {
    const int me = ctx_.rank();
    const auto self = detail::plan_self_copies(me, ctx_.size(), sends, recvs);
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<MPI_Request> requests;
    requests.reserve(sends.size() + recvs.size());
    for (const Message& m : recvs)
      if (m.peer != me) detail::post_recv(m.data, m.bytes, m.peer, m.tag, comm_.get(), &requests.emplace_back());
    for (const Message& m : sends)
      if (m.peer != me) detail::post_send(m.data, m.bytes, m.peer, m.tag, comm_.get(), &requests.emplace_back());
    // Ordered on the stream, so visible to the work that follows finish() there.
    for (const detail::SelfCopy& c : self)
      if (c.bytes > 0) TESSERA_CUDA_CHECK(cudaMemcpyAsync(c.dst, c.src, c.bytes, cudaMemcpyDefault, stream));
    return detail::make_request_exchange(ctx_, std::move(requests));
  }

 private:
  Context& ctx_;
  detail::DupComm comm_;
};

}  // namespace

std::unique_ptr<Transport> detail::make_mpi_transport(Context& ctx) { return std::make_unique<MpiTransport>(ctx); }
#else
std::unique_ptr<Transport> detail::make_mpi_transport(Context&) {
  throw std::logic_error("the mpi transport needs CUDA, and this tessera was built without it");
}
#endif

}  // namespace tessera::comm
