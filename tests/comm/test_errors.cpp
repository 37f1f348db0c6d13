// Collective error agreement: every rank sees the same CollectiveError, with the lowest failing
// rank's message and exit code, and the communicator stays usable afterwards.
#include <gtest/gtest.h>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "tests/support/mpi_test.hpp"

using namespace tessera;
using tessera::test::context;

TEST(Errors, AllOkPassesWhenEveryRankIsOk) {
  EXPECT_NO_THROW(comm::all_ok(context(), true, "unused"));
}

TEST(Errors, LowestFailingRankSpeaksForAll) {
  auto& ctx = context();
  const int p = ctx.size();
  // The last rank and (if there are 3+) rank 1 fail; the lower one's message wins everywhere.
  const bool fails = ctx.rank() == p - 1 || (p >= 3 && ctx.rank() == 1);
  const int expect_rank = p >= 3 ? 1 : p - 1;
  try {
    comm::all_ok(ctx, !fails, fmt::format("disk full on rank {}", ctx.rank()), ExitCode::input_error);
    FAIL() << "all_ok returned although a rank failed";
  } catch (const comm::CollectiveError& e) {
    EXPECT_EQ(e.failed_rank(), expect_rank);
    EXPECT_EQ(std::string(e.what()), fmt::format("disk full on rank {}", expect_rank));
    EXPECT_EQ(e.code(), ExitCode::input_error);
  }
  // Still in step afterwards.
  EXPECT_EQ(comm::allreduce(ctx, 1, comm::Op::sum), p);
}

TEST(Errors, AgreeTurnsExceptionsIntoTheSameErrorEverywhere) {
  auto& ctx = context();
  try {
    comm::agree(ctx, [&] {
      if (ctx.rank() == ctx.size() - 1) throw InputError("deck.toml:3: bad value");
    });
    FAIL() << "agree returned although a rank threw";
  } catch (const comm::CollectiveError& e) {
    EXPECT_EQ(e.failed_rank(), ctx.size() - 1);
    EXPECT_STREQ(e.what(), "deck.toml:3: bad value");
    EXPECT_EQ(e.code(), ExitCode::input_error);
  }
}

TEST(Errors, RunGuardedReturnsTheAgreedCodeOnEveryRank) {
  auto& ctx = context();
  const int code = comm::run_guarded(ctx, [&]() -> int {
    comm::agree(ctx, [&] {
      if (ctx.rank() == 0) throw std::runtime_error("cannot open output directory");
    });
    return 0;
  });
  EXPECT_EQ(code, static_cast<int>(ExitCode::runtime_error));
  EXPECT_EQ(comm::allreduce(ctx, code, comm::Op::min), code);
}
