#include "comm/errors.hpp"

#include <algorithm>
#include <chrono>
#include <new>
#include <thread>
#include <vector>

#include "core/log.hpp"

namespace tessera::comm {
namespace {
// How long a rank that failed outside an agreement point waits for the others to see it.
constexpr double kAcknowledgeSeconds = 10.0;
}  // namespace

void all_ok(Context& ctx, bool ok, std::string_view message, ExitCode code) {
  // The lowest failing rank speaks for all: MIN over (ok ? size : rank).
  int candidate = ok ? ctx.size() : ctx.rank();
  int first = 0;
  MPI_Request req;
  TESSERA_MPI_CHECK(MPI_Iallreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, ctx.world(), &req));
  wait(ctx, req);
  if (first == ctx.size()) return;
  // The failing rank broadcasts its exit code and message.
  std::string text = ctx.rank() == first ? std::string(message) : std::string();
  long long header[2] = {static_cast<long long>(code), static_cast<long long>(text.size())};
  TESSERA_MPI_CHECK(MPI_Ibcast(header, 2, MPI_LONG_LONG, first, ctx.world(), &req));
  wait(ctx, req);
  text.resize(static_cast<std::size_t>(header[1]));
  if (header[1] > 0) {
    TESSERA_MPI_CHECK(MPI_Ibcast(text.data(), static_cast<int>(header[1]), MPI_CHAR, first, ctx.world(), &req));
    wait(ctx, req);
  }
  const auto agreed = header[0] == 0 ? ExitCode::runtime_error : static_cast<ExitCode>(header[0]);
  throw CollectiveError(first, agreed, text.empty() ? std::string("unspecified failure") : text);
}

std::string failure_message(const std::exception& e) {
  if (!dynamic_cast<const std::bad_alloc*>(&e)) return e.what();
  return "out of host memory: an allocation failed (std::bad_alloc) although the memory check at start-up passed "
         "(its estimates count only the largest arrays); run on more ranks or nodes, or give each rank more memory "
         "(the job's memory request, `ulimit -v` / `ulimit -d`, TESSERA_HOST_MEMORY)";
}

void rethrow_input(const InputError& e, const std::string& message) {
  if (const auto* agreed = dynamic_cast<const AgreedInputError*>(&e)) throw AgreedInputError(agreed->failed_rank(), message);
  throw InputError(message);
}

void wait_all(Context& ctx, int count, MPI_Request* reqs) {
  // Poll instead of blocking, so a failure announced by another rank is seen here. Spin
  // (yielding, for oversubscribed ranks) for the first 200 us, where most waits end, then back
  // off to spare the core. A sleep is never shorter than the kernel's timer slack (~50-70 us
  // on Linux), so sleeping from the start would add that to every short wait.
  using clock = std::chrono::steady_clock;
  const auto spin_until = clock::now() + std::chrono::microseconds(200);
  auto pause = std::chrono::microseconds(0);
  for (;;) {
    int done = 0;
    TESSERA_MPI_CHECK(MPI_Testall(count, reqs, &done, MPI_STATUSES_IGNORE));
    if (done) return;
    RemoteFailure failure;
    if (ctx.poll_failure(failure)) throw RemoteError(std::move(failure));
    if (clock::now() < spin_until) {
      std::this_thread::yield();
      continue;
    }
    pause = std::min(pause + std::chrono::microseconds(20), std::chrono::microseconds(200));
    std::this_thread::sleep_for(pause);
  }
}

void wait(Context& ctx, MPI_Request& req) { wait_all(ctx, 1, &req); }

int run_guarded(Context& ctx, const std::function<int()>& body) {
  try {
    // A rank that could not start (no GPU binding, launcher mismatch) fails with the others.
    agree(ctx, [&] { ctx.check_startup(); });
    return body();
  } catch (const CollectiveError& e) {
    // Every rank holds the same error: rank 0 reports, all return the same code cleanly.
    if (ctx.rank() == 0) {
      const std::string text =
          e.failed_rank() == 0 ? e.what() : fmt::format("rank {}: {}", e.failed_rank(), e.what());
      log::write(log::Level::error, false, text);
    }
    return static_cast<int>(e.code());
  } catch (const AgreedInputError& e) {
    if (ctx.rank() == 0) {
      const std::string text =
          e.failed_rank() == 0 ? e.what() : fmt::format("rank {}: {}", e.failed_rank(), e.what());
      log::write(log::Level::error, false, text);
    }
    return static_cast<int>(ExitCode::input_error);
  } catch (const RemoteError& e) {
    // Another rank failed while this one waited: rank 0 prints its message (the failing rank
    // stays silent while the others answer), every rank acknowledges, and once all have, all
    // exit with its code. tessera's communicator may now hold a collective the failing rank
    // never joined, so no collective and no MPI_Finalize follow: exit_now.
    if (ctx.rank() == 0) log::write(log::Level::error, false, fmt::format("rank {}: {}", e.failure().rank, e.what()));
    ctx.acknowledge_failure(e.failure().rank);
    ctx.exit_now(static_cast<int>(e.failure().code));
  } catch (const std::exception& e) {
    const ExitCode code = exit_code_for(e);
    const std::string message = failure_message(e);
    if (ctx.size() == 1) {
      log::error("{}", message);
      return static_cast<int>(code);
    }
    ctx.announce_failure(message, code);
    // The others see the notice in their next tessera collective or transport wait. A rank
    // that does not answer in time sits where it cannot see it (a raw MPI or HDF5 collective,
    // a long kernel) or failed too: MPI_Abort then ends the job, so nothing hangs.
    if (ctx.await_acknowledgements(kAcknowledgeSeconds)) {
      if (ctx.rank() == 0) log::error("{}", message);
      ctx.release_acknowledged();
      ctx.exit_now(static_cast<int>(code));
    }
    log::error("{}", message);
    ctx.abort(code);
  }
}

}  // namespace tessera::comm
