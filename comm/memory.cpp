#include "comm/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sys/resource.h>
#include <functional>
#include <string>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/device_info.hpp"
#include "core/env.hpp"

namespace tessera::comm {
namespace {

// A number from a one-value file ("max" reads as no limit); negative when absent.
double read_number_file(const char* path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return -1;
  try {
    return std::stod(word);
  } catch (const std::exception&) {
    return -1;
  }
}

double mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024.0;
  }
  return -1;
}

// What is left of this process's cgroup limit (v2, then v1); negative without a limit.
double cgroup_left_bytes() {
  const double v2_max = read_number_file("/sys/fs/cgroup/memory.max");
  if (v2_max > 0) return v2_max - std::max(0.0, read_number_file("/sys/fs/cgroup/memory.current"));
  const double v1_max = read_number_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  if (v1_max > 0 && v1_max < 1e18)  // v1 reports "no limit" as a huge number
    return v1_max - std::max(0.0, read_number_file("/sys/fs/cgroup/memory/memory.usage_in_bytes"));
  return -1;
}

// A number of kB from /proc/self/status ("VmSize:", "VmData:"); negative when absent.
double status_kib(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0) {
      try {
        return std::stod(line.substr(key.size()));
      } catch (const std::exception&) {
        return -1;
      }
    }
  return -1;
}

// What a per-process limit leaves this process: `ulimit -v` (RLIMIT_AS) counts its whole
// address space (VmSize), `ulimit -d` (RLIMIT_DATA) its data mappings (VmData), heap and
// anonymous mmaps included. Negative without a limit.
double rlimit_left_bytes(int resource, const char* status_key) {
  struct rlimit rl {};
  if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return -1;
  const double used = std::max(0.0, status_kib(status_key)) * 1024.0;
  return std::max(0.0, static_cast<double>(rl.rlim_cur) - used);
}

// Ranks on this node bound to the same GPU as this one (by PCI bus id: exact whether each
// rank sees one device or all of them).
int ranks_sharing_device(Context& ctx, const std::string& bus_id) {
  const std::uint64_t mine = std::hash<std::string>{}(bus_id);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(ctx.local_size()));
  TESSERA_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, ctx.node()));
  return static_cast<int>(std::count(all.begin(), all.end(), mine));
}

bool fits(const MemoryNeed& need, const MemoryBudget& budget, bool on_device) {
  return need.host_bytes <= budget.host_bytes && (!on_device || need.device_bytes <= budget.device_bytes);
}

}  // namespace

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.{}f} {}", bytes, bytes < 10 ? 2 : 1, units[u]);
}

MemoryBudget memory_budget(Context& ctx, bool with_device) {
  // What the node offers each rank: MemAvailable, the cgroup's limit, or TESSERA_HOST_MEMORY
  // (the smallest), shared by the node's ranks; then this process's own limits, which are not
  // shared. The message names what set the budget on the rank with the least.
  enum Source { none = -1, mem_available = 0, cgroup_limit = 1, environment = 2, address_space = 3, data_size = 4 };
  double host = mem_available_bytes();
  int source = mem_available;
  const double cgroup = cgroup_left_bytes();
  if (cgroup >= 0 && (host < 0 || cgroup < host)) {
    host = cgroup;
    source = cgroup_limit;
  }
  if (const auto cap = env::get_integer("TESSERA_HOST_MEMORY"); cap && (host < 0 || double(*cap) < host)) {
    host = static_cast<double>(*cap);
    source = environment;
  }
  if (host < 0) host = 1e300;  // nothing to go by: do not refuse
  host /= ctx.local_size();
  const double as_left = rlimit_left_bytes(RLIMIT_AS, "VmSize:");
  if (as_left >= 0 && as_left < host) {
    host = as_left;
    source = address_space;
  }
  const double data_left = rlimit_left_bytes(RLIMIT_DATA, "VmData:");
  if (data_left >= 0 && data_left < host) {
    host = data_left;
    source = data_size;
  }

  double device = 0;
  if (with_device) {
    const auto dev = current_device_info();
    if (dev) device = static_cast<double>(dev->free_bytes) / ranks_sharing_device(ctx, dev->pci_bus_id);
    else ranks_sharing_device(ctx, "");  // still collective over the node
  }
  MemoryBudget b;
  b.host_bytes = allreduce(ctx, host, Op::min);
  b.device_bytes = allreduce(ctx, device, Op::min);
  switch (allreduce(ctx, host == b.host_bytes ? source : int(none), Op::max)) {
    case data_size: b.host_source = "what its data size limit (ulimit -d, RLIMIT_DATA) leaves"; break;
    case address_space: b.host_source = "what its address space limit (ulimit -v, RLIMIT_AS) leaves"; break;
    case environment: b.host_source = "TESSERA_HOST_MEMORY shared by the ranks on its node"; break;
    case cgroup_limit: b.host_source = "what the cgroup's memory limit leaves, shared by the ranks on its node"; break;
    default: b.host_source = "MemAvailable shared by the ranks on its node";
  }
  return b;
}

void require_memory(Context& ctx, bool on_device, const MemoryModel& model, std::string_view where) {
  const MemoryBudget budget = memory_budget(ctx, on_device);
  const double ranks = ctx.size();
  const MemoryNeed need = model(ranks);
  if (fits(need, budget, on_device)) return;

  // The smallest rank count that fits, with as much memory per rank as these ranks have:
  // double until it fits (the need per rank never grows with ranks), then bisect.
  constexpr double kMostRanks = 1e9;
  double lo = ranks, hi = ranks;
  while (hi < kMostRanks && !fits(model(hi), budget, on_device)) {
    lo = hi;
    hi *= 2;
  }
  std::string would_fit;
  if (hi >= kMostRanks && !fits(model(kMostRanks), budget, on_device)) {
    would_fit = "no number of ranks with this much memory each would hold it (part of it does not shrink with "
                "more ranks)";
  } else {
    while (hi - lo > 1) {
      const double mid = std::floor((lo + hi) / 2);
      (fits(model(mid), budget, on_device) ? hi : lo) = mid;
    }
    would_fit = fmt::format("it would fit on {:.0f} ranks or more with this much memory each", hi);
  }
  const bool host_short = need.host_bytes > budget.host_bytes;
  const std::string shortfall =
      host_short ? fmt::format("needs at least {} of host memory per rank on {:.0f} rank(s), and a rank has {} ({})",
                               format_bytes(need.host_bytes), ranks, format_bytes(budget.host_bytes),
                               budget.host_source)
                 : fmt::format("needs at least {} of GPU memory per rank on {:.0f} rank(s), and a rank has {} (the "
                               "GPU's free memory shared by the ranks bound to it)",
                               format_bytes(need.device_bytes), ranks, format_bytes(budget.device_bytes));
  throw AgreedInputError(0, fmt::format("{}: this run {}; {}", where, shortfall, would_fit));
}

}  // namespace tessera::comm
