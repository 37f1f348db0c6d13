// The host transport (cpu backend): MPI_Isend/MPI_Irecv on host memory over a private
// duplicate of ctx.world(); messages to the rank itself are plain copies. Also the MPI helpers
// that the staged and mpi transports share.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "comm/errors.hpp"
#include "comm/transport.hpp"

namespace tessera::comm {
namespace detail {

std::vector<SelfCopy> plan_self_copies(int rank, int size, std::span<const Message> sends,
                                       std::span<const Message> recvs) {
  const auto check = [&](const Message& m, const char* what) {
    if (m.peer < 0 || m.peer >= size)
      throw std::logic_error(fmt::format("transport: {} with peer {} outside the {} ranks", what, m.peer, size));
    if (m.tag < 0 || m.tag > 32767)
      throw std::logic_error(fmt::format("transport: {} to/from rank {} has tag {} outside [0, 32767]", what,
                                         m.peer, m.tag));
    if (m.bytes > 0 && m.data == nullptr)
      throw std::logic_error(fmt::format("transport: {} of {} bytes (tag {}) has no buffer", what, m.bytes, m.tag));
  };
  for (const Message& m : sends) check(m, "send");
  for (const Message& m : recvs) check(m, "receive");

  // Pair the k-th self-receive of a tag with the k-th self-send of that tag.
  std::vector<const Message*> self_sends;
  for (const Message& m : sends)
    if (m.peer == rank) self_sends.push_back(&m);
  std::vector<SelfCopy> copies;
  for (const Message& r : recvs) {
    if (r.peer != rank) continue;
    auto it = std::find_if(self_sends.begin(), self_sends.end(),
                           [&](const Message* s) { return s != nullptr && s->tag == r.tag; });
    if (it == self_sends.end())
      throw std::logic_error(fmt::format("transport: rank {} receives from itself with tag {}, but sends itself "
                                         "no message with that tag", rank, r.tag));
    if ((*it)->bytes != r.bytes)
      throw std::length_error(fmt::format("transport: rank {} sends itself {} bytes with tag {} but expects {}",
                                          rank, (*it)->bytes, r.tag, r.bytes));
    copies.push_back({r.data, (*it)->data, r.bytes});
    *it = nullptr;
  }
  for (const Message* s : self_sends)
    if (s != nullptr)
      throw std::logic_error(fmt::format("transport: rank {} sends itself a message with tag {}, but posts no "
                                         "receive from itself with that tag", rank, s->tag));
  return copies;
}

namespace {
// A byte datatype for messages whose size does not fit an int count: whole chunks plus the
// remainder. The signature is still a run of MPI_BYTEs, so it matches any byte receive.
MPI_Datatype large_byte_type(std::size_t bytes) {
  constexpr std::size_t chunk = std::size_t{1} << 20;
  const std::size_t chunks = bytes / chunk, rest = bytes % chunk;
  if (chunks > static_cast<std::size_t>(INT_MAX))
    throw std::length_error(fmt::format("transport: message of {} bytes is too large for MPI", bytes));
  MPI_Datatype chunk_type = MPI_DATATYPE_NULL, whole = MPI_DATATYPE_NULL;
  TESSERA_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(chunk), MPI_BYTE, &chunk_type));
  int lengths[2] = {static_cast<int>(chunks), static_cast<int>(rest)};
  MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(chunks * chunk)};
  MPI_Datatype types[2] = {chunk_type, MPI_BYTE};
  TESSERA_MPI_CHECK(MPI_Type_create_struct(2, lengths, displacements, types, &whole));
  TESSERA_MPI_CHECK(MPI_Type_commit(&whole));
  TESSERA_MPI_CHECK(MPI_Type_free(&chunk_type));
  return whole;
}

template <class Post>
void post_bytes(std::size_t bytes, Post&& post) {
  if (bytes <= static_cast<std::size_t>(INT_MAX)) {
    post(static_cast<int>(bytes), MPI_BYTE);
    return;
  }
  MPI_Datatype type = large_byte_type(bytes);
  post(1, type);
  TESSERA_MPI_CHECK(MPI_Type_free(&type));  // MPI keeps it alive until the operation completes
}
}  // namespace

void post_send(const void* data, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request* req) {
  post_bytes(bytes, [&](int count, MPI_Datatype type) {
    TESSERA_MPI_CHECK(MPI_Isend(data, count, type, peer, tag, comm, req));
  });
}

void post_recv(void* data, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request* req) {
  post_bytes(bytes, [&](int count, MPI_Datatype type) {
    TESSERA_MPI_CHECK(MPI_Irecv(data, count, type, peer, tag, comm, req));
  });
}

DupComm::DupComm(MPI_Comm parent) { TESSERA_MPI_CHECK(MPI_Comm_dup(parent, &comm_)); }

DupComm::~DupComm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

namespace {
class RequestExchange final : public Exchange {
 public:
  RequestExchange(Context& ctx, std::vector<MPI_Request> requests) : ctx_(ctx), requests_(std::move(requests)) {}
  void finish() override {
    if (!requests_.empty()) wait_all(ctx_, static_cast<int>(requests_.size()), requests_.data());
    requests_.clear();
  }

 private:
  Context& ctx_;
  std::vector<MPI_Request> requests_;
};
}  // namespace

std::unique_ptr<Exchange> make_request_exchange(Context& ctx, std::vector<MPI_Request> requests) {
  return std::make_unique<RequestExchange>(ctx, std::move(requests));
}

}  // namespace detail

namespace {

class HostTransport final : public Transport {
 public:
  explicit HostTransport(Context& ctx) : ctx_(ctx), comm_(ctx.world()) {}
  TransportKind kind() const override { return TransportKind::host; }
  Memory memory() const override { return Memory::host; }

  std::unique_ptr<Exchange> start(std::span<const Message> sends, std::span<const Message> recvs,
                                  stream_t /*stream*/) override {
    const auto self = detail::plan_self_copies(ctx_.rank(), ctx_.size(), sends, recvs);
    std::vector<MPI_Request> requests;
    requests.reserve(sends.size() + recvs.size());
    // Receives first, so arriving messages land in their buffers instead of MPI's.
    for (const Message& m : recvs) {
      if (m.peer == ctx_.rank()) continue;
      detail::post_recv(m.data, m.bytes, m.peer, m.tag, comm_.get(), &requests.emplace_back());
    }
    for (const Message& m : sends) {
      if (m.peer == ctx_.rank()) continue;
      detail::post_send(m.data, m.bytes, m.peer, m.tag, comm_.get(), &requests.emplace_back());
    }
    for (const detail::SelfCopy& c : self)
      if (c.bytes > 0) std::memcpy(c.dst, c.src, c.bytes);
    return detail::make_request_exchange(ctx_, std::move(requests));
  }

 private:
  Context& ctx_;
  detail::DupComm comm_;
};

}  // namespace

std::unique_ptr<Transport> detail::make_host_transport(Context& ctx) { return std::make_unique<HostTransport>(ctx); }

}  // namespace tessera::comm
