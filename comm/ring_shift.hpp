#pragma once
// RingShift: blocks travel one step around the ring of ranks (rank r sends to r+1 and receives
// from r-1) while the caller computes on the block it holds. Two buffers: `current()` is the
// block being computed on and sent; `incoming()` receives the next one. After finish(), the
// buffers swap, so the received block is current(). Transfers run on the shift's own stream,
// so they overlap compute queued on other streams.
//
//   RingShift ring(ctx, transport, max_bytes);
//   copy my block into ring.current();
//   for (int step = 0; step < P; ++step) {
//     if (step + 1 < P) ring.start(bytes_of_current, bytes_of_next, compute_stream);
//     compute(ring.current(), compute_stream);          // overlaps the transfer
//     if (step + 1 < P) ring.finish(compute_stream);    // swap: the next block is now current()
//   }
//
// Passing the compute stream as `after` matters on devices: incoming() is the buffer the
// previous step computed on, and the transfer must not overwrite it while that still runs.
// Every rank must call start/finish the same number of times (P == 1 works: a self copy).
#include <cstddef>
#include <memory>

#include "comm/transport.hpp"
#include "core/stream.hpp"

namespace tessera::comm {

class RingShift {
 public:
  // Buffers of `max_bytes` each in the transport's memory (device or pinned/host).
  RingShift(Context& ctx, Transport& transport, std::size_t max_bytes);
  ~RingShift();

  void* current();
  void* incoming();
  std::size_t capacity() const { return max_bytes_; }
  // The stream transfers run on (nullptr for host memory). Work that produced current() or
  // still reads incoming() must be complete or ordered before start() (start makes the
  // transfer wait for work queued on `after`, if given; host memory: complete before start).
  stream_t stream() const;

  // Sends current()[0, send_bytes) to rank+1, receives recv_bytes from rank-1 into incoming()
  // (recv_bytes must be what rank-1 sends). Throws std::length_error above capacity() and
  // std::logic_error when a shift is already in flight.
  void start(std::size_t send_bytes, std::size_t recv_bytes, stream_t after = nullptr);
  // Completes the transfer and swaps the buffers. `consumer`, if given, is a stream on which the
  // new current() will be read; it is made to wait for the transfer.
  void finish(stream_t consumer = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::size_t max_bytes_;
};

}  // namespace tessera::comm
