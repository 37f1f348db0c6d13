// GoogleTest main for MPI tests. Every rank runs every test; only rank 0 prints the usual
// report (other ranks print failures only). At the end the ranks agree on the verdict, so a
// failure on any rank makes every rank exit non-zero.
#include <gtest/gtest.h>

#include "comm/collectives.hpp"
#include "core/backend.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::test {
namespace {
comm::Context* g_ctx = nullptr;

// Prints failed assertions on ranks other than 0, prefixed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

 private:
  int rank_;
};
}  // namespace

comm::Context& context() { return *g_ctx; }
bool have_gpu() { return cuda_compiled() && visible_device_count() > 0; }

}  // namespace tessera::test

int main(int argc, char** argv) {
  tessera::comm::Context ctx(&argc, &argv);
  tessera::test::g_ctx = &ctx;
  ::testing::InitGoogleTest(&argc, argv);
  if (ctx.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new tessera::test::RankFailurePrinter(ctx.rank()));
  }
  const int local = RUN_ALL_TESTS();
  const int any_failed = tessera::comm::allreduce(ctx, local != 0 ? 1 : 0, tessera::comm::Op::max);
  if (ctx.rank() == 0 && any_failed && local == 0)
    std::fprintf(stderr, "tests failed on another rank (see the [rank N] lines above)\n");
  return any_failed ? 1 : 0;
}
