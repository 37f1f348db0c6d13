#pragma once
// Will the run fit? Each solver estimates the memory one rank needs from its deck, as a
// function of the rank count (solvers/solver.hpp, SolverInfo::memory); require_memory()
// compares that with what each rank can have, before any large allocation or loop over the
// input, and refuses a deck that cannot fit with the size, the key and a rank count that would.
//
// What a rank can have: the node's available host memory (MemAvailable, what is left of the
// cgroup's limit under Slurm or a container, or TESSERA_HOST_MEMORY, whichever is smallest)
// shared by the ranks on the node, at most what the process's own limits leave it (`ulimit -v`,
// RLIMIT_AS, less its address space so far; `ulimit -d`, RLIMIT_DATA, less its data so far),
// and the free memory of its GPU shared by the ranks bound to that GPU. Estimates are lower bounds of what the solvers allocate, so a refusal is certain,
// not a guess.
#include <functional>
#include <string>
#include <string_view>

#include "comm/context.hpp"

namespace tessera::comm {

struct MemoryNeed {
  double host_bytes = 0;    // per rank
  double device_bytes = 0;  // per rank, on its GPU (cuda backend)
};
// The need per rank on `ranks` ranks.
using MemoryModel = std::function<MemoryNeed(double ranks)>;

struct MemoryBudget {
  double host_bytes = 0;    // per rank, the smallest over all ranks
  double device_bytes = 0;  // per rank, the smallest over all ranks (0 without a device)
  std::string host_source;  // what set host_bytes, for messages ("MemAvailable shared by the ranks on its node")
};

// Collective: every rank gets the same budget.
MemoryBudget memory_budget(Context& ctx, bool with_device);

// Collective: returns when `model` on this run's rank count fits the budget; otherwise every
// rank throws the same AgreedInputError naming `where` (a deck location such as
// "deck.toml:4: nbody.n = 1000000000000"), the bytes needed and available, and the smallest
// rank count that would fit with as much memory per rank (or that none would).
void require_memory(Context& ctx, bool on_device, const MemoryModel& model, std::string_view where);

// "1.50 GiB", "12.0 TiB": sizes in messages.
std::string format_bytes(double bytes);

}  // namespace tessera::comm
