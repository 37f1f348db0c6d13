// The checkpoint manifest: attributes of the /manifest group, plus the file-name pattern.
#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "io/checked_io.hpp"
#include "io/checkpoint.hpp"
#include "io/checksum.hpp"
#include "io/h5_attribute.hpp"

namespace tessera::io {
namespace {
constexpr const char* kManifestGroup = "manifest";
constexpr std::string_view kPrefix = "checkpoint_";
constexpr std::string_view kSuffix = ".h5";
// The manifest's fields as one byte string, each length-prefixed so no two manifests give
// the same bytes; its checksum (io/checksum.hpp, one byte per element) covers them all.
std::uint64_t manifest_checksum(const CheckpointManifest& m) {
  std::string bytes;
  const auto add = [&](std::string_view key, std::string_view value) {
    bytes += fmt::format("{}:{}:", key, value.size());
    bytes += value;
    bytes += '\n';
  };
  add("solver", m.solver);
  add("format_version", std::to_string(m.format_version));
  add("step", std::to_string(m.step));
  add("time", fmt::format("{:a}", m.time));  // hexadecimal: every bit of the double
  add("deck_text", m.deck_text);
  add("tessera_version", m.tessera_version);
  add("ranks", std::to_string(m.ranks));
  for (std::uint64_t w : m.rng_state) add("rng", std::to_string(w));
  return checksum_bytes(bytes.data(), static_cast<std::int64_t>(bytes.size()), 1, 0);
}

}  // namespace

std::filesystem::path checkpoint_path(const std::filesystem::path& dir, std::int64_t step) {
  return dir / fmt::format("{}{:08d}{}", kPrefix, step, kSuffix);
}

std::optional<std::int64_t> checkpoint_step(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) || !name.ends_with(kSuffix))
    return std::nullopt;
  const std::string_view digits(name.data() + kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  std::int64_t step = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.front() == '-' || digits.front() == '+')
    return std::nullopt;
  return step;
}

void write_manifest(const Group& root, const CheckpointManifest& m) {
  const Group g = root.create_group(kManifestGroup);
  write_attribute(g, "solver", m.solver);
  write_attribute(g, "format_version", static_cast<std::int32_t>(m.format_version));
  write_attribute(g, "step", static_cast<std::int64_t>(m.step));
  write_attribute(g, "time", m.time);
  write_attribute(g, "deck_text", m.deck_text);
  write_attribute(g, "tessera_version", m.tessera_version);
  write_attribute(g, "ranks", static_cast<std::int32_t>(m.ranks));
  write_attribute(g, "rng_state", m.rng_state);
  // The manifest says where the run stands (step, time, deck): a change to it must be seen as
  // surely as a change to the data.
  write_attribute(g, kChecksumAttribute, manifest_checksum(m));
  write_attribute(g, kChecksumAlgorithmAttribute, kChecksumAlgorithm);
}

CheckpointManifest read_manifest(const Group& root) {
  if (!root.exists(kManifestGroup))
    throw InputError(fmt::format("{} is not a complete tessera checkpoint: it has no /{} group (the solver name, "
                                 "step and deck of the run are missing)",
                                 root.file_name(), kManifestGroup));
  const Group g = root.open_group(kManifestGroup);
  CheckpointManifest m;
  try {
    m.solver = read_attribute<std::string>(g, "solver");
    m.format_version = read_attribute<std::int32_t>(g, "format_version");
    m.step = read_attribute<std::int64_t>(g, "step");
    m.time = read_attribute<double>(g, "time");
    m.deck_text = read_attribute<std::string>(g, "deck_text");
    m.tessera_version = read_attribute<std::string>(g, "tessera_version");
    m.ranks = read_attribute<std::int32_t>(g, "ranks");
    m.rng_state = read_attribute<std::vector<std::uint64_t>>(g, "rng_state");
  } catch (const InputError& e) {
    throw InputError(fmt::format("checkpoint {} has a damaged manifest: {}", root.file_name(), e.what()));
  } catch (const H5Error& e) {  // damaged metadata: HDF5 cannot read what the header points to
    throw InputError(fmt::format("checkpoint {} is corrupted: its manifest cannot be read ({})", root.file_name(),
                                 e.what()));
  }
  // Values no writer produces: a damaged or hand-edited manifest.
  auto bad = [&](std::string_view key, const std::string& value, std::string_view need) {
    return InputError(fmt::format("checkpoint {} has a damaged manifest: {} = {} ({})", root.file_name(), key, value,
                                  need));
  };
  if (m.solver.empty()) throw bad("solver", "\"\"", "must name a solver");
  if (m.format_version < 1) throw bad("format_version", std::to_string(m.format_version), "must be 1 or more");
  if (m.step < 0) throw bad("step", std::to_string(m.step), "must not be negative");
  if (!std::isfinite(m.time)) throw bad("time", fmt::format("{}", m.time), "must be finite");
  if (m.ranks < 1) throw bad("ranks", std::to_string(m.ranks), "must be 1 or more");
  // Possible values that are not the ones written: the checksum finds them (checkpoints
  // written before the manifest had one are checked against their file name only), and a
  // step other than the file name's.
  const auto corrupted = [&](const std::string& why) {
    return InputError(fmt::format("checkpoint {} is corrupted: {}", root.file_name(), why));
  };
  try {
    if (has_attribute(g, kChecksumAttribute)) {
      const auto stored = read_attribute<std::uint64_t>(g, kChecksumAttribute);
      const std::uint64_t computed = manifest_checksum(m);
      if (stored != computed)
        throw corrupted(fmt::format("its manifest (solver {}, step {}, time {:g}) does not match the manifest's "
                                    "checksum (stored {:#018x}, computed {:#018x})",
                                    m.solver, m.step, m.time, stored, computed));
    }
  } catch (const H5Error& e) {
    throw corrupted(fmt::format("the checksum of its manifest cannot be read ({})", e.what()));
  }
  const std::filesystem::path name = std::filesystem::path(root.file_name()).filename();
  const std::optional<std::int64_t> named = checkpoint_step(name);
  if (named && *named != m.step)
    throw corrupted(fmt::format("its manifest says step {}, its name {} says step {}", m.step, name.string(),
                                *named));
  return m;
}

}  // namespace tessera::io
