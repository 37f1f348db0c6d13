// A program that fails on purpose on the last rank, to test that failures end every rank with
// the same non-zero code, a message from rank 0, and no hang. Modes:
//   agree    the failure happens inside an agreement point (comm::agree): clean exit, code 2
//   waiting  the failure happens while the others wait in a tessera collective: they see it
//   bad_alloc  an allocation fails on the culprit while the others wait in a tessera collective:
//              every rank exits 1 cleanly, one message (rank 0's), no MPI_Abort
//   blocked  the others sit in a raw MPI_Barrier that cannot poll: the job is aborted
#include <mpi.h>

#include <cstring>
#include <new>
#include <stdexcept>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"

using namespace tessera;

int main(int argc, char** argv) {
  comm::Context ctx(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "agree";
  const bool culprit = ctx.rank() == ctx.size() - 1;
  return comm::run_guarded(ctx, [&]() -> int {
    if (std::strcmp(mode, "agree") == 0) {
      comm::agree(ctx, [&] {
        if (culprit) throw InputError("probe.toml:4: value out of range (agree mode)");
      });
    } else if (std::strcmp(mode, "waiting") == 0) {
      if (culprit) throw std::runtime_error("device fell off the bus (waiting mode)");
      comm::barrier(ctx);  // never completes: the culprit does not arrive
    } else if (std::strcmp(mode, "bad_alloc") == 0) {
      if (culprit) throw std::bad_alloc();
      comm::barrier(ctx);
    } else {
      if (culprit) throw std::runtime_error("device fell off the bus (blocked mode)");
      MPI_Barrier(MPI_COMM_WORLD);
    }
    return 0;
  });
}
