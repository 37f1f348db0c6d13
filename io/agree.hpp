#pragma once
// agree_input: comm::agree that keeps the kind of error. Runs fn() on every rank; when any
// rank failed, every rank throws: an InputError (comm::AgreedInputError, with the first failing
// rank's message) when that rank's failure was an InputError, so callers can refuse bad files
// with one exception type on every rank, and comm::CollectiveError otherwise.
#include <utility>

#include "comm/errors.hpp"
#include "core/error.hpp"

namespace tessera::io {

template <class F>
void agree_input(comm::Context& ctx, F&& fn) {
  try {
    comm::agree(ctx, std::forward<F>(fn));
  } catch (const comm::CollectiveError& e) {
    if (e.code() == ExitCode::input_error) throw comm::AgreedInputError(e.failed_rank(), e.what());
    throw;
  }
}

}  // namespace tessera::io
