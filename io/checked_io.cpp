#include "io/checked_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "comm/collectives.hpp"
#include "io/agree.hpp"
#include "io/h5_attribute.hpp"

namespace tessera::io::detail {

namespace {
// The stored checksum against the computed one (this rank; verify_checksum agrees).
void compare_checksum(const Group& g, std::string_view name, std::uint64_t computed) {
  const Dataset d = g.open_dataset(name);
  if (!has_attribute(d, kChecksumAttribute))
    throw InputError(fmt::format("dataset {} in {} has no checksum; it was not written as checked data", d.name(),
                                 d.file_name()));
  const auto algorithm = has_attribute(d, kChecksumAlgorithmAttribute)
                             ? read_attribute<std::string>(d, kChecksumAlgorithmAttribute)
                             : std::string("(none recorded)");
  if (algorithm != kChecksumAlgorithm)
    throw InputError(fmt::format("dataset {} in {} has a checksum of kind '{}'; this tessera computes '{}'", d.name(),
                                 d.file_name(), algorithm, kChecksumAlgorithm));
  const auto stored = read_attribute<std::uint64_t>(d, kChecksumAttribute);
  if (stored != computed)
    throw InputError(fmt::format("dataset {} in {} is corrupted: its stored checksum is {:#018x} but the data read "
                                 "gives {:#018x}",
                                 d.name(), d.file_name(), stored, computed));
}

}  // namespace

void record_checksum(const Dataset& d, std::uint64_t local_part) {
  const std::uint64_t sum = checksum_global(d.context(), local_part);
  write_attribute(d, kChecksumAttribute, sum);
  write_attribute(d, kChecksumAlgorithmAttribute, kChecksumAlgorithm);
}

void agreed_read(const Group& g, std::string_view name, const std::function<void()>& read) {
  agree_input(g.context(), [&] {
    try {
      read();
    } catch (const H5Error& e) {
      throw InputError(fmt::format("dataset {} in {} is corrupted: it cannot be read ({})", g.path_of(name),
                                   g.file_name(), e.what()));
    }
  });
}

void verify_checksum(const Group& g, std::string_view name, std::uint64_t local_part) {
  const std::uint64_t computed = checksum_global(g.context(), local_part);
  agreed_read(g, name, [&] { compare_checksum(g, name, computed); });
}

void require_tiling_1d(const Group& g, std::string_view name, std::int64_t offset, std::int64_t count) {
  comm::Context& ctx = g.context();
  const std::vector<std::int64_t> offsets = comm::allgather(ctx, offset);
  const std::vector<std::int64_t> counts = comm::allgather(ctx, count);
  const std::int64_t n = dataset_extent(g, name).at(0);
  // Every rank sees the same gathered ranges, so every rank reaches the same verdict.
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (std::size_t r = 0; r < offsets.size(); ++r)
    if (counts[r] > 0) ranges.emplace_back(offsets[r], counts[r]);
  std::sort(ranges.begin(), ranges.end());
  std::int64_t next = 0;
  for (const auto& [begin, c] : ranges) {
    if (begin != next) break;
    next = begin + c;
  }
  if (next != n || std::accumulate(counts.begin(), counts.end(), std::int64_t{0}) != n)
    throw std::invalid_argument(fmt::format("checked read of {} in {}: the ranks' ranges do not cover its {} elements "
                                            "exactly once, so its checksum cannot be verified",
                                            g.path_of(name), g.file_name(), n));
}

void require_tiling_3d(const Group& g, std::string_view name, const Box3& box) {
  const std::int64_t total = comm::allreduce(g.context(), box.volume(), comm::Op::sum);
  if (total != box.global_volume())
    throw std::invalid_argument(fmt::format("checked read of {} in {}: the ranks' boxes hold {} cells, the dataset {}; "
                                            "its checksum cannot be verified",
                                            g.path_of(name), g.file_name(), total, box.global_volume()));
}

}  // namespace tessera::io::detail
