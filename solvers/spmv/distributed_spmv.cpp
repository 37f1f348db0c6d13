#include "solvers/spmv/distributed_spmv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "comm/collectives.hpp"
#include "core/profile.hpp"

namespace tessera::spmv {
namespace {
constexpr int kTagGhosts = 811;
}

namespace {

// The rows of `ghost` that hold entries, as a block of those rows alone, and their indices.
template <class T>
CsrBlock<T> compress_rows(const CsrBlock<T>& ghost, std::vector<local_index>& rows) {
  CsrBlock<T> out;
  out.cols = ghost.cols;
  out.col = ghost.col;
  out.val = ghost.val;
  for (std::int64_t r = 0; r < ghost.rows; ++r) {
    if (ghost.row_ptr[r + 1] == ghost.row_ptr[r]) continue;
    rows.push_back(static_cast<local_index>(r));
    out.row_ptr.push_back(ghost.row_ptr[r + 1]);
  }
  out.rows = static_cast<std::int64_t>(rows.size());
  return out;
}

}  // namespace

template <class T>
DistributedSpmv<T>::DistributedSpmv(comm::Context& ctx, comm::Transport& transport, Engine<T>& engine,
                                    const DistMatrix<T>& a)
    : ctx_(ctx), transport_(transport), engine_(engine), rows_(a.my_rows.count), cols_(a.my_cols.count) {
  if (transport.memory() != engine.memory())
    throw std::logic_error(fmt::format("spmv: the transport moves {} memory but the engine works in {} memory",
                                       transport.memory() == Memory::host ? "host" : "device",
                                       engine.memory() == Memory::host ? "host" : "device"));
  local_ = engine.prepare(a.local);
  std::vector<local_index> rows;
  const CsrBlock<T> ghost = compress_rows(a.ghost, rows);
  const GhostPlan& p = a.plan;
  const Memory m = engine.memory();
  ghost_rows_ = Array<local_index>(m, rows.size());
  ghost_rows_.upload(rows);
  // Short ghost rows (a stencil's faces: one or two entries) are summed and added into y by
  // one kernel (add_rows); long ones (a power-law matrix's hubs) keep the variant's product
  // and a scatter, which balance them.
  std::int64_t longest = 0;
  for (std::int64_t r = 0; r < ghost.rows; ++r) longest = std::max(longest, ghost.row_ptr[r + 1] - ghost.row_ptr[r]);
  if (longest <= kShortGhostRow) {
    ghost_csr_info_.rows = ghost.rows;
    ghost_csr_info_.cols = ghost.cols;
    ghost_csr_info_.nnz = ghost.nnz();
    ghost_csr_info_.variant = Variant::csr_scalar;
    ghost_rp_ = Array<std::int64_t>(m, ghost.row_ptr.size());
    ghost_rp_.upload(ghost.row_ptr);
    ghost_col_ = Array<local_index>(m, ghost.col.size());
    ghost_col_.upload(ghost.col);
    ghost_val_ = Array<T>(m, ghost.val.size());
    ghost_val_.upload(ghost.val);
  } else {
    ghost_ = engine.prepare(ghost);
    ghost_y_ = Array<T>(m, rows.size());
  }
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
  if (exchange_ && m == Memory::device) post_ = std::make_unique<SidePost>();
}

template <class T>
MultiplyTimes DistributedSpmv<T>::multiply(const T* x, T* y) {
  const stream_t s = engine_.stream();
  const bool device = engine_.memory() == Memory::device;
  marks_[0].record(s, device);
  std::unique_ptr<comm::Exchange> exchange;
  const auto post = [&](stream_t on) {
    TESSERA_PROFILE("spmv.post");  // the ghost exchange, in flight once this returns
    exchange = transport_.start(sends_, recvs_, on);
  };
  if (exchange_) {
    TESSERA_PROFILE("spmv.pack");  // gathers x's sent entries
    if (!sends_.empty()) engine_.gather(x, send_index_.data(), static_cast<std::int64_t>(send_buf_.size()), send_buf_.data());
    if (post_) {
      post_->packed.record(s);
      post_->packed.make_wait(post_->stream);
    } else {
      post(s);  // host MPI: posted before the local product, which holds the host
    }
  }
  marks_[1].record(s, device);
  {
    TESSERA_PROFILE("spmv.local");  // queued: the host does not wait for it
    engine_.multiply(*local_, x, y, false);
  }
  marks_[2].record(s, device);
  if (post_) post(post_->stream);  // the host posts while the GPU runs the local product
  if (exchange) {
    TESSERA_PROFILE("spmv.ghost_wait");  // the stream (a host transport: the host) waits for the ghosts
    exchange->finish();
    if (post_) {
      post_->arrived.record(post_->stream);
      post_->arrived.make_wait(s);
    }
  }
  marks_[3].record(s, device);
  if (ghost_info().rows > 0) {
    TESSERA_PROFILE("spmv.ghost");
    if (!ghost_) {
      engine_.add_rows(ghost_csr_info_.rows, ghost_rp_.data(), ghost_col_.data(), ghost_val_.data(), ghost_x_.data(),
                       ghost_rows_.data(), y);
    } else {
      engine_.multiply(*ghost_, ghost_x_.data(), ghost_y_.data(), false);
      engine_.scatter_add(ghost_y_.data(), ghost_rows_.data(), ghost_->info().rows, y);
    }
  }
  marks_[4].record(s, device);
  {
    TESSERA_PROFILE("spmv.synchronize");  // the one host wait of a multiply
    engine_.synchronize();
  }
  MultiplyTimes t;
  t.pack = marks_[1].seconds_since(marks_[0]);
  t.local = marks_[2].seconds_since(marks_[1]);
  t.wait = marks_[3].seconds_since(marks_[2]);
  t.ghost = marks_[4].seconds_since(marks_[3]);
  return t;
}

template class DistributedSpmv<float>;
template class DistributedSpmv<double>;

}  // namespace tessera::spmv
