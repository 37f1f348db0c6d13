#include "io/openpmd.hpp"

#include <fmt/format.h>

#include <ctime>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "io/h5_attribute.hpp"
#include "io/published.hpp"
#include "tessera/version.hpp"

namespace tessera::io::openpmd {
namespace {

std::vector<double> vec(const auto& a) { return std::vector<double>(a.begin(), a.end()); }

}  // namespace

std::string iteration_format(std::string_view prefix) { return fmt::format("{}_%T.h5", prefix); }

std::filesystem::path file_name(std::string_view prefix, std::uint64_t iteration) {
  return fmt::format("{}_{}.h5", prefix, iteration);
}

std::string date_text(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %z", &tm);
  return std::string(buf, n);
}

void write_root(const Group& root, std::string_view prefix, Contents contents) {
  write_ascii_attribute(root, "openPMD", kVersion);
  write_attribute(root, "openPMDextension", std::uint32_t{0});
  write_ascii_attribute(root, "basePath", "/data/%T/");
  if (contents.meshes) write_ascii_attribute(root, "meshesPath", "meshes/");
  if (contents.particles) write_ascii_attribute(root, "particlesPath", "particles/");
  write_ascii_attribute(root, "iterationEncoding", "fileBased");
  write_ascii_attribute(root, "iterationFormat", iteration_format(prefix));
  write_ascii_attribute(root, "software", "tessera");
  write_ascii_attribute(root, "softwareVersion", tessera::kVersion);
  // Rank 0's clock: attribute values must be the same on every rank.
  const auto now = comm::broadcast_value<std::int64_t>(root.context(), static_cast<std::int64_t>(std::time(nullptr)));
  write_ascii_attribute(root, "date", date_text(now));
}

void write_record(const Object& record, const Dimension& unit_dimension, double time_offset) {
  write_attribute(record, "unitDimension", vec(unit_dimension));
  write_attribute(record, "timeOffset", time_offset);
}

void write_mesh(const Object& record, const Mesh& mesh) {
  write_ascii_attribute(record, "geometry", "cartesian");
  write_ascii_attribute(record, "dataOrder", "C");
  write_ascii_attribute(record, "axisLabels", std::vector<std::string>(mesh.axis_labels.begin(), mesh.axis_labels.end()));
  write_attribute(record, "gridSpacing", vec(mesh.grid_spacing));
  write_attribute(record, "gridGlobalOffset", vec(mesh.grid_global_offset));
  write_attribute(record, "gridUnitSI", mesh.grid_unit_si);
  write_ascii_attribute(record, "fieldSmoothing", "none");
  write_record(record, mesh.unit_dimension, mesh.time_offset);
}

void write_component(const Object& component, double unit_si, const std::optional<std::array<double, 3>>& position) {
  write_attribute(component, "unitSI", unit_si);
  if (position) write_attribute(component, "position", vec(*position));
}

void write_constant_component(const Group& record, std::string_view name, double value,
                              const std::vector<std::uint64_t>& shape, double unit_si) {
  const Group c = record.create_group(name);
  write_attribute(c, "value", value);
  write_attribute(c, "shape", shape);
  write_component(c, unit_si);
}

namespace {

std::filesystem::path prepared(comm::Context& ctx, const std::filesystem::path& dir, std::string_view prefix,
                               std::uint64_t iteration) {
  comm::agree(ctx, [&] {
    if (ctx.is_root()) std::filesystem::create_directories(dir);
  });
  return dir / file_name(prefix, iteration);
}

}  // namespace

SeriesFile::SeriesFile(comm::Context& ctx, const std::filesystem::path& dir, std::string_view prefix,
                       std::uint64_t iteration, Contents contents)
    : out_(ctx, prepared(ctx, dir, prefix, iteration)), iteration_(iteration) {
  write_root(out_.root(), prefix, contents);
}

Group SeriesFile::iteration(double time, double dt, double time_unit_si) {
  Group it = out_.root().create_group(fmt::format("data/{}", iteration_));
  write_attribute(it, "time", time);
  write_attribute(it, "dt", dt);
  write_attribute(it, "timeUnitSI", time_unit_si);
  return it;
}

std::filesystem::path SeriesFile::commit() {
  const std::filesystem::path path = out_.commit();
  log_published(path);
  return path;
}

}  // namespace tessera::io::openpmd
