#pragma once
// The distributed product y = A x over the ranks (the driver). Per multiply, on each rank:
//   1. pack the owned x entries other ranks need (GhostPlan::send_index) and start their
//      exchange on the run's transport (the host transport with the cpu engine);
//   2. multiply the local block (owned columns only) while the ghosts travel;
//   3. finish the exchange and add the ghost block times the received x entries.
// Only the ghost block waits for the network. A rank with no ghosts and nothing to send
// skips the exchange's wait entirely.
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "solvers/spmv/backend.hpp"
#include "solvers/spmv/matrix.hpp"

namespace tessera::spmv {

// Seconds of the phases of one multiply on this rank.
struct MultiplyTimes {
  double pack = 0, local = 0, wait = 0, ghost = 0;
  double total() const { return pack + local + wait + ghost; }
};

template <class T>
class DistributedSpmv {
 public:
  // Collective only in that every rank builds one. Prepares both blocks in the engine (the
  // variant's layouts) and the exchange buffers. The engine's memory must be the transport's.
  DistributedSpmv(comm::Context& ctx, comm::Transport& transport, Engine<T>& engine, const DistMatrix<T>& a);

  // Collective: y = A x. x holds this rank's owned columns (a.my_cols.count entries), y its
  // rows (a.my_rows.count), both in the engine's memory; y is complete when this returns.
  MultiplyTimes multiply(const T* x, T* y);

  const BlockInfo& local_info() const { return local_->info(); }
  const BlockInfo& ghost_info() const { return ghost_->info(); }
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
  std::unique_ptr<PreparedBlock> local_, ghost_;
  Array<local_index> send_index_;
  Array<T> send_buf_, ghost_x_;
  std::vector<comm::Message> sends_, recvs_;
  bool exchange_ = false;  // any rank has ghosts (the same on every rank)
};

}  // namespace tessera::spmv
