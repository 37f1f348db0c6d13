#pragma once
// One rank's part of a scan run, for the run's input/output types: the input block (generated
// or read), the result block, the variant, and what the solver does with them. The solver
// holds it through this type-free interface; make_job picks the types.
#include <cstdint>
#include <memory>

#include "comm/context.hpp"
#include "comm/transport.hpp"
#include "core/stream.hpp"
#include "io/h5_file.hpp"
#include "solvers/scan/distributed.hpp"
#include "solvers/scan/params.hpp"
#include "solvers/scan/verify.hpp"

namespace tessera::scan {

// A verification over all ranks: `local` is this rank's, the counts are global.
struct GlobalVerifyReport {
  VerifyReport local;
  std::int64_t checked = 0, mismatches = 0;
  double max_error = 0;
};

class ScanJob {
 public:
  virtual ~ScanJob() = default;
  // Collective: generates or reads this rank's input block and poisons the output block.
  virtual void load() = 0;
  // Collective: one distributed scan of the whole input.
  virtual PhaseTimes run() = 0;
  virtual bool has_result() const = 0;
  // Collective: writes /scan (and /input when asked) under `root`.
  virtual void write(const io::Group& root) = 0;
  // Collective: compares the result with the CPU reference (setup.verify: sample or full).
  virtual GlobalVerifyReport verify() = 0;
  // Collective: the io layer's position-sensitive checksum of the whole input.
  virtual std::uint64_t input_checksum() = 0;
  virtual Memory memory() const = 0;
};

// `transport`: the run's, which the distributed scan may exchange the block totals on.
std::unique_ptr<ScanJob> make_job(comm::Context& ctx, comm::Transport& transport, const Params& setup,
                                  stream_t stream);

}  // namespace tessera::scan
