#pragma once
// Device side of comm::PeerWindow: a kernel stores into other ranks' windows (plain stores to
// view.base[r]), then its last block signals every rank and waits for every rank's signal
// with the same sequence number:
//
//   ... stores to peers ...
//   if (comm::peer::last_block_done(view)) comm::peer::signal_and_wait(view, sequence);
//
// When the kernel has finished, what every other rank stored into this rank's window before
// its signal is visible to the work queued after it on the stream. The release/acquire pair
// is at system scope (the flag crosses GPUs); each block's arrival releases its stores at
// system scope, so the last block's signal is ordered after all of them.
#include "comm/peer_window.hpp"

namespace tessera::comm::peer {

__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ unsigned long long global_nanoseconds() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Every thread of every block calls it after its stores; true in thread 0 of the block that
// arrives last (the counter is then reset for the next kernel). A block arrives through one
// atomic of its thread 0 after the barrier, as cooperative groups' grid sync does at GPU
// scope: the barrier orders the block's stores before that thread's release, and release is
// cumulative, so one release at system scope covers all of them (256 fences per block cost
// more). Acquire as well: the last block then sees every block's stores. A grid of one block
// needs only the barrier (signal's fence then covers the block's stores): each system-scope
// operation costs a microsecond or so, and most shares of a search are one block.
__device__ __forceinline__ bool last_block_done(const PeerView& v) {
  __shared__ bool last;
  __syncthreads();
  if (gridDim.x * gridDim.y * gridDim.z == 1) return threadIdx.x == 0;
  if (threadIdx.x == 0) {
    unsigned int before;
    asm volatile("atom.acq_rel.sys.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(v.arrivals) : "memory");
    last = before == gridDim.x * gridDim.y * gridDim.z - 1;
    if (last) *v.arrivals = 0;
  }
  __syncthreads();
  return threadIdx.x == 0 && last;
}

// One thread: tells every other rank that this rank's stores up to here are done (sequence
// number `seq`). The fence makes them visible first: it lasts until the stores of this and
// earlier kernels to other GPUs have landed. A fence followed by a strong (relaxed) store is a
// release in PTX's memory model, so one fence serves every rank's flag; a release store per
// rank would fence again for each.
__device__ __forceinline__ void signal(const PeerView& v, unsigned long long seq) {
  __threadfence_system();
  for (int r = 0; r < v.ranks; ++r)
    if (r != v.me) store_relaxed(v.flags[r] + v.me, seq);
}

// One thread: waits until every other rank has signalled `seq`. A wait longer than
// PeerWindow::kWaitTimeoutSeconds gives up and sets *v.status to 1 + the silent rank.
__device__ __forceinline__ void wait(const PeerView& v, unsigned long long seq) {
  const unsigned long long start = global_nanoseconds();
  const auto limit = static_cast<unsigned long long>(PeerWindow::kWaitTimeoutSeconds * 1e9);
  for (int r = 0; r < v.ranks; ++r) {
    if (r == v.me) continue;
    while (load_acquire(v.flags[v.me] + r) < seq) {
      if (global_nanoseconds() - start > limit) {
        *v.status = 1ull + static_cast<unsigned long long>(r);
        return;
      }
    }
  }
}

__device__ __forceinline__ void signal_and_wait(const PeerView& v, unsigned long long seq) {
  signal(v, seq);
  wait(v, seq);
}

}  // namespace tessera::comm::peer
