#pragma once
// Collective error agreement. Two paths, so that a failure on any rank ends the job with one
// message and one exit code and never leaves ranks waiting in a collective:
//
//  1. Agreement points (all_ok, agree): every rank reports ok or a message; if any failed, all
//     ranks throw the same CollectiveError carrying the lowest failing rank's message and code.
//     run_guarded() then has rank 0 print it and every rank return that code after a clean
//     MPI_Finalize. Use this around work where ranks can fail independently (parsing a deck on
//     rank 0, opening files, allocating memory).
//  2. Anything else (a std::bad_alloc, a failed write on one rank): the failing rank announces
//     the failure on a private channel. Ranks waiting in tessera's collectives and transports
//     (which poll that channel) throw RemoteError, acknowledge it and wait; rank 0 prints the
//     message once. When every rank acknowledged within 10 s, all exit with the failing rank's
//     code (no MPI_Finalize: a collective the failing rank never joined may be pending).
//     Otherwise (a rank in a raw MPI or HDF5 collective, which cannot poll; two ranks failing
//     at once) the failing rank prints the message and ends the job with MPI_Abort.
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "comm/context.hpp"
#include "core/error.hpp"

namespace tessera::comm {

// The same on every rank after an agreement point found a failure.
class CollectiveError : public std::runtime_error {
 public:
  CollectiveError(int failed_rank, ExitCode code, const std::string& message)
      : std::runtime_error(message), failed_rank_(failed_rank), code_(code) {}
  int failed_rank() const { return failed_rank_; }
  ExitCode code() const { return code_; }

 private:
  int failed_rank_;
  ExitCode code_;
};

// An InputError that every rank already holds (io::agree_input throws it): callers catch it
// as an InputError; run_guarded ends the run as cleanly as after a CollectiveError.
class AgreedInputError : public InputError {
 public:
  AgreedInputError(int failed_rank, const std::string& message) : InputError(message), failed_rank_(failed_rank) {}
  int failed_rank() const { return failed_rank_; }

 private:
  int failed_rank_;
};

// Throws an InputError with `message` instead of `e`, agreed (AgreedInputError) when `e` was.
[[noreturn]] void rethrow_input(const InputError& e, const std::string& message);

// Another rank failed outside an agreement point; seen while this rank waited.
class RemoteError : public std::runtime_error {
 public:
  explicit RemoteError(RemoteFailure f) : std::runtime_error(f.message), failure_(std::move(f)) {}
  const RemoteFailure& failure() const { return failure_; }

 private:
  RemoteFailure failure_;
};

// Collective: returns when every rank passed ok; otherwise throws CollectiveError everywhere.
void all_ok(Context& ctx, bool ok, std::string_view message = {}, ExitCode code = ExitCode::runtime_error);

// The message for a failure: e.what(), except that an allocation that failed (std::bad_alloc,
// whose what() says only that) says what ran out and what to do.
std::string failure_message(const std::exception& e);

// Collective: runs fn() on every rank and agrees on the outcome (exceptions become the message).
template <class F>
void agree(Context& ctx, F&& fn) {
  bool ok = true;
  std::string message;
  ExitCode code = ExitCode::ok;
  try {
    std::forward<F>(fn)();
  } catch (const CollectiveError&) {
    throw;  // already agreed by a nested agreement point
  } catch (const AgreedInputError&) {
    throw;
  } catch (const RemoteError&) {
    throw;  // another rank failed and takes no part in this agreement (run_guarded ends the run)
  } catch (const std::exception& e) {
    ok = false;
    message = failure_message(e);
    code = exit_code_for(e);
  }
  all_ok(ctx, ok, message, code);
}

// Waits for `req` while watching for failures announced by other ranks (throws RemoteError).
void wait(Context& ctx, MPI_Request& req);
void wait_all(Context& ctx, int count, MPI_Request* reqs);

// Runs the program body on every rank and turns any failure into one message and one exit
// code as described above. Returns the code main() should return.
int run_guarded(Context& ctx, const std::function<int()>& body);

}  // namespace tessera::comm
