#pragma once
// An exception must not leave an OpenMP parallel region: the runtime calls std::terminate
// (SIGABRT, a backtrace, no message). OmpFailure catches what a region's work throws (an
// allocation failing under a memory limit), lets the other threads skip the work that depended
// on it, and rethrows the first exception after the region, where run_guarded turns it into
// one message and exit 1 on every rank.
#include <atomic>
#include <exception>
#include <mutex>

namespace tessera::bfs {

class OmpFailure {
 public:
  // Runs f() unless an earlier call failed; never throws.
  template <class F>
  void run(F&& f) noexcept {
    if (failed()) return;
    try {
      f();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
      failed_.store(true, std::memory_order_release);
    }
  }
  // After a barrier (the end of `omp single`, `omp barrier`), every thread reads the same value.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // Outside the region: throws the first exception caught, if any.
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::exception_ptr first_;
};

}  // namespace tessera::bfs
