#pragma once
// The distributed product y = A x over the ranks (the driver). Per multiply, on each rank:
//   1. pack the owned x entries other ranks need (GhostPlan::send_index) and start their
//      exchange on the run's transport (the host transport with the cpu engine);
//   2. multiply the local block (owned columns only) while the ghosts travel;
//   3. finish the exchange and multiply the ghost block, which holds only the rows that have
//      ghost entries (a compressed row list, as PETSc's off-diagonal block), then add those
//      sums into their rows of y (rows of at most 8 entries, a stencil's faces: both in one
//      kernel, Engine::add_rows).
// On a GPU the exchange is posted from a side stream that waits only for the pack, after the
// local product is queued: posting (ncclGroupEnd) costs the host about 30 us, which the GPU
// would otherwise spend idle before the local product (measured: the pack phase 0.032 ms at
// P = 2 against 0.003 ms with no exchange). The host transport keeps the order above.
// All of it is queued on the engine's stream with no host synchronisation between the local
// and the ghost product: rows without ghost entries overlap the exchange entirely, and the
// ghost product costs its own rows, not a pass over every row. The host waits once, at the
// end. A rank with no ghosts and nothing to send skips the exchange's wait entirely.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/matrix.hpp"
#include "core/stream.hpp"
#include "core/timer.hpp"

namespace tessera::spmv {

// Seconds of the phases of one multiply on this rank, as the engine's stream ran them (device
// events on a GPU, so that no phase needs a host synchronisation of its own): pack, local
// product, the stream's wait for the exchange, the ghost product with its scatter.
struct MultiplyTimes {
  double pack = 0, local = 0, wait = 0, ghost = 0;
  double total() const { return pack + local + wait + ghost; }
};

template <class T>
class DistributedSpmv {
 public:
  // Collective only in that every rank builds one. Prepares the local block in the engine (the
  // variant's layout), the ghost block (plain CSR for add_rows where its rows are short, else
  // the variant's layout) and the exchange buffers. The engine's memory must be the transport's.
  DistributedSpmv(comm::Context& ctx, comm::Transport& transport, Engine<T>& engine, const DistMatrix<T>& a);

  // Collective: y = A x. x holds this rank's owned columns (a.my_cols.count entries), y its
  // rows (a.my_rows.count), both in the engine's memory; y is complete when this returns.
  MultiplyTimes multiply(const T* x, T* y);

  const BlockInfo& local_info() const { return local_->info(); }
  // The compressed rows only: as add_rows reads them (plain CSR) where they are short, else
  // in the variant's layout.
  const BlockInfo& ghost_info() const { return ghost_ ? ghost_->info() : ghost_csr_info_; }
  std::int64_t ghost_rows() const { return static_cast<std::int64_t>(ghost_rows_.size()); }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  Engine<T>& engine() { return engine_; }
  // The x entries the last multiply received from other ranks (ghost_cols order), on the host.
  std::vector<T> ghost_values() const { return ghost_x_.download(); }

 private:
  comm::Context& ctx_;
  comm::Transport& transport_;
  Engine<T>& engine_;
  std::int64_t rows_ = 0, cols_ = 0;
  std::unique_ptr<PreparedBlock> local_, ghost_;  // ghost_: long ghost rows only
  BlockInfo ghost_csr_info_;                       // short ghost rows: the CSR add_rows reads
  Array<local_index> send_index_;
  Array<T> send_buf_, ghost_x_;
  Array<local_index> ghost_rows_;  // the rows of y that the compressed ghost block adds into
  // Ghost rows of at most kShortGhostRow entries (then ghost_ is null): the compressed block's
  // CSR for add_rows; else ghost_y_, the variant's sums, one per compressed row, scattered into y.
  static constexpr std::int64_t kShortGhostRow = 8;
  Array<std::int64_t> ghost_rp_;
  Array<local_index> ghost_col_;
  Array<T> ghost_val_;
  Array<T> ghost_y_;
  std::array<StreamMark, 5> marks_;  // the phases' boundaries on the engine's stream
  // Device memory with an exchange only (a CPU run must not touch the GPU): the stream the
  // exchange is posted from while the engine's stream runs the local product.
  struct SidePost {
    Stream stream{StreamPriority::high};
    Event packed, arrived;  // the side stream after the pack; the engine's stream after the ghosts
  };
  std::unique_ptr<SidePost> post_;
  std::vector<comm::Message> sends_, recvs_;
  bool exchange_ = false;  // any rank has ghosts (the same on every rank)
};

}  // namespace tessera::spmv
