#include "solvers/spmv/distributed_spmv.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "comm/collectives.hpp"
#include "core/profile.hpp"
#include "core/timer.hpp"

namespace tessera::spmv {
namespace {
constexpr int kTagGhosts = 811;
}

template <class T>
DistributedSpmv<T>::DistributedSpmv(comm::Context& ctx, comm::Transport& transport, Engine<T>& engine,
                                    const DistMatrix<T>& a)
    : ctx_(ctx), transport_(transport), engine_(engine), rows_(a.my_rows.count), cols_(a.my_cols.count) {
  if (transport.memory() != engine.memory())
    throw std::logic_error(fmt::format("spmv: the transport moves {} memory but the engine works in {} memory",
                                       transport.memory() == Memory::host ? "host" : "device",
                                       engine.memory() == Memory::host ? "host" : "device"));
  local_ = engine.prepare(a.local);
  ghost_ = engine.prepare(a.ghost);
  const GhostPlan& p = a.plan;
  const Memory m = engine.memory();
  send_index_ = Array<local_index>(m, p.send_index.size());
  send_index_.upload(p.send_index);
  send_buf_ = Array<T>(m, p.send_index.size());
  ghost_x_ = Array<T>(m, a.ghost_cols.size());
  for (int r = 0; r < ctx.size(); ++r) {
    if (p.send_counts[r] > 0)
      sends_.push_back({send_buf_.data() + p.send_offsets[r], static_cast<std::size_t>(p.send_counts[r]) * sizeof(T), r,
                        kTagGhosts});
    if (p.recv_counts[r] > 0)
      recvs_.push_back({ghost_x_.data() + p.recv_offsets[r], static_cast<std::size_t>(p.recv_counts[r]) * sizeof(T), r,
                        kTagGhosts});
  }
  exchange_ = comm::allreduce(ctx, static_cast<std::int64_t>(a.ghost_cols.size()), comm::Op::max) > 0;
}

template <class T>
MultiplyTimes DistributedSpmv<T>::multiply(const T* x, T* y) {
  MultiplyTimes t;
  HostTimer timer;
  std::unique_ptr<comm::Exchange> exchange;
  if (exchange_) {
    TESSERA_PROFILE("spmv.pack");  // gathers x's sent entries and posts the ghost exchange
    if (!sends_.empty()) engine_.gather(x, send_index_.data(), static_cast<std::int64_t>(send_buf_.size()), send_buf_.data());
    exchange = transport_.start(sends_, recvs_, engine_.stream());
  }
  t.pack = timer.seconds();
  timer.reset();
  {
    TESSERA_PROFILE("spmv.local");  // already synchronized: the host time is the kernel's
    engine_.multiply(*local_, x, y, false);
    engine_.synchronize();
  }
  t.local = timer.seconds();
  if (exchange) {
    timer.reset();
    {
      TESSERA_PROFILE("spmv.ghost_wait");
      exchange->finish();
    }
    t.wait = timer.seconds();
    timer.reset();
    TESSERA_PROFILE("spmv.ghost");
    if (ghost_->info().nnz > 0) engine_.multiply(*ghost_, ghost_x_.data(), y, true);
    engine_.synchronize();
    t.ghost = timer.seconds();
  }
  return t;
}

template class DistributedSpmv<float>;
template class DistributedSpmv<double>;

}  // namespace tessera::spmv
