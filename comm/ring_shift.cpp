// RingShift: a double buffer passed one rank along the ring through any Transport.
#include "comm/ring_shift.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <stdexcept>

#include "core/buffer.hpp"
#include "core/profile.hpp"

namespace tessera::comm {
namespace {
constexpr int kRingTag = 0x5247;  // "RG": the ring's messages, apart from other users of the transport
}  // namespace

struct RingShift::Impl {
  Impl(Context& c, Transport& t, std::size_t bytes) : ctx(c), transport(t), device(t.memory() == Memory::device) {
    if (device) {
      stream.emplace(StreamPriority::high);  // ahead of the compute it overlaps
      after_ready.emplace();
      transfer_done.emplace();
      device_buffers[0] = DeviceBuffer<std::byte>(bytes);
      device_buffers[1] = DeviceBuffer<std::byte>(bytes);
      buffers[0] = device_buffers[0].data();
      buffers[1] = device_buffers[1].data();
    } else {
      host_buffers[0] = PinnedBuffer<std::byte>(bytes);
      host_buffers[1] = PinnedBuffer<std::byte>(bytes);
      buffers[0] = host_buffers[0].data();
      buffers[1] = host_buffers[1].data();
    }
  }

  Context& ctx;
  Transport& transport;
  const bool device;
  std::optional<Stream> stream;  // device memory only: the transfers' stream
  std::optional<Event> after_ready, transfer_done;
  DeviceBuffer<std::byte> device_buffers[2];
  PinnedBuffer<std::byte> host_buffers[2];
  void* buffers[2] = {nullptr, nullptr};
  int current = 0;  // index of current() in buffers
  std::unique_ptr<Exchange> in_flight;
};

RingShift::RingShift(Context& ctx, Transport& transport, std::size_t max_bytes)
    : impl_(std::make_unique<Impl>(ctx, transport, max_bytes)), max_bytes_(max_bytes) {}

// An unfinished shift is dropped, not completed: completing could wait forever on a rank that
// failed, and a destructor runs on exactly that path.
RingShift::~RingShift() = default;

void* RingShift::current() { return impl_->buffers[impl_->current]; }
void* RingShift::incoming() { return impl_->buffers[1 - impl_->current]; }
stream_t RingShift::stream() const { return impl_->stream ? impl_->stream->get() : nullptr; }

void RingShift::start(std::size_t send_bytes, std::size_t recv_bytes, stream_t after) {
  TESSERA_PROFILE("ring.start");
  Impl& s = *impl_;
  if (s.in_flight) throw std::logic_error("RingShift::start: the previous shift has not been finished");
  if (send_bytes > max_bytes_ || recv_bytes > max_bytes_)
    throw std::length_error(fmt::format("RingShift::start: {} {} bytes, but the ring's buffers hold {} bytes",
                                        send_bytes > max_bytes_ ? "sending" : "receiving",
                                        send_bytes > max_bytes_ ? send_bytes : recv_bytes, max_bytes_));
  if (s.device && after) {
    s.after_ready->record(after);
    s.after_ready->make_wait(stream());
  }
  const int rank = s.ctx.rank(), size = s.ctx.size();
  const Message send{current(), send_bytes, (rank + 1) % size, kRingTag};
  const Message recv{incoming(), recv_bytes, (rank - 1 + size) % size, kRingTag};
  s.in_flight = s.transport.start({&send, 1}, {&recv, 1}, stream());
}

void RingShift::finish(stream_t consumer) {
  Impl& s = *impl_;
  TESSERA_PROFILE_SYNC("ring.wait", stream());  // until the block has arrived
  if (!s.in_flight) throw std::logic_error("RingShift::finish: no shift was started");
  s.in_flight->finish();
  s.in_flight.reset();
  s.current = 1 - s.current;
  if (s.device && consumer) {
    s.transfer_done->record(stream());
    s.transfer_done->make_wait(consumer);
  }
}

}  // namespace tessera::comm
