#include "io/provenance.hpp"

#include <cstdint>
#include <ctime>

#include "comm/collectives.hpp"
#include "io/h5_attribute.hpp"
#include "tessera/version.hpp"

namespace tessera::io {
namespace {

// "2025-01-31T12:00:00Z": the same text on every rank (rank 0's clock).
std::string utc_now(comm::Context& ctx) {
  const auto now = comm::broadcast_value<std::int64_t>(ctx, static_cast<std::int64_t>(std::time(nullptr)));
  const std::time_t t = static_cast<std::time_t>(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

}  // namespace

void write_provenance(const Group& root, const Provenance& p) {
  // Strings variable-length UTF-8, like units and column names (h5py reads str).
  write_vlen_attribute(root, "solver", p.solver);
  write_vlen_attribute(root, "tessera_version", kVersion);
  write_vlen_attribute(root, "tessera_commit", kGitCommit);
  write_vlen_attribute(root, "deck", p.deck);
  write_attribute(root, "ranks", static_cast<std::int32_t>(root.context().size()));
  write_vlen_attribute(root, "created", utc_now(root.context()));
}

}  // namespace tessera::io
