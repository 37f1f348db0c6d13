#pragma once
// openPMD 1.1.0 (base standard, no extension) over tessera's parallel HDF5 layer: the
// attributes the standard requires, and a file-based series (one file per iteration,
// <prefix>_<iteration>.h5; iterationFormat "<prefix>_%T.h5") published like every other output.
//
//   io::openpmd::SeriesFile f(ctx, dir, "fdtd", step, {.meshes = true});  // <dir>/fdtd_<step>.h5.tmp
//   const io::Group it = f.iteration(time, dt, 1.0);  // /data/<step>/ with time, dt, timeUnitSI
//   const io::Group e = it.create_group("meshes/E");
//   io::openpmd::write_mesh(e, mesh);                            // geometry, gridSpacing, ... unitDimension
//   ... datasets "x", "y", "z", each with write_component(d, unitSI, position)
//   f.commit();                                                  // verified, renamed, logged
//
// Strings are fixed-length ASCII (the standard's (string), io/h5_attribute.hpp). Nothing here
// depends on the number of ranks (no provenance "ranks" attribute; the date is rank 0's), so 1
// and P ranks write the same file but for `date`. Every call is collective.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/context.hpp"
#include "io/h5_file.hpp"
#include "io/output_file.hpp"

namespace tessera::io::openpmd {

inline constexpr const char* kVersion = "1.1.0";

// Powers of the SI base units (length, mass, time, current, temperature, amount, luminous
// intensity): the standard's unitDimension.
using Dimension = std::array<double, 7>;
inline constexpr Dimension kDimensionless{0, 0, 0, 0, 0, 0, 0};
inline constexpr Dimension kLength{1, 0, 0, 0, 0, 0, 0};
inline constexpr Dimension kMass{0, 1, 0, 0, 0, 0, 0};
inline constexpr Dimension kVelocity{1, 0, -1, 0, 0, 0, 0};
inline constexpr Dimension kElectricField{1, 1, -3, -1, 0, 0, 0};  // V/m = kg m s^-3 A^-1
inline constexpr Dimension kMagneticFieldH{-1, 0, 0, 1, 0, 0, 0};  // A/m

// "<prefix>_%T.h5" and "<prefix>_<iteration>.h5" (the iteration unpadded, as %T stands for).
std::string iteration_format(std::string_view prefix);
std::filesystem::path file_name(std::string_view prefix, std::uint64_t iteration);

// "YYYY-MM-DD HH:mm:ss tz" (the standard's `date`), local time with a numeric zone.
std::string date_text(std::int64_t unix_seconds);

// What an iteration holds: meshesPath / particlesPath are written only when it does (the
// standard: when set, the group behind it must exist).
struct Contents {
  bool meshes = false;
  bool particles = false;
};

// Root attributes of one file of a file-based series.
void write_root(const Group& root, std::string_view prefix, Contents contents);

// A 3D cartesian mesh record, C order. Axis arrays follow axis_labels, slowest first, the order
// of the datasets' dimensions.
struct Mesh {
  std::array<std::string, 3> axis_labels{"x", "y", "z"};
  std::array<double, 3> grid_spacing{1, 1, 1};
  std::array<double, 3> grid_global_offset{0, 0, 0};
  double grid_unit_si = 1;
  Dimension unit_dimension = kDimensionless;
  double time_offset = 0;
};
void write_mesh(const Object& record, const Mesh& mesh);

// A record's unitDimension and timeOffset (every record, mesh or particle).
void write_record(const Object& record, const Dimension& unit_dimension, double time_offset);
// A record component's unitSI, and, for a mesh component, its position in the cell (in units
// of gridSpacing, axis_labels order).
void write_component(const Object& component, double unit_si,
                     const std::optional<std::array<double, 3>>& position = std::nullopt);
// A constant record component: group `name` with `value`, `shape` and unitSI (the standard's
// short-hand for a component equal for every element, e.g. positionOffset).
void write_constant_component(const Group& record, std::string_view name, double value,
                              const std::vector<std::uint64_t>& shape, double unit_si);

// One iteration's file, <dir>/<prefix>_<iteration>.h5, written as .tmp and published whole by
// commit() (io/output_file.hpp), which also logs it (io/published.hpp).
class SeriesFile {
 public:
  SeriesFile(comm::Context& ctx, const std::filesystem::path& dir, std::string_view prefix, std::uint64_t iteration,
             Contents contents);
  const Group& root() const { return out_.root(); }
  // Creates /data/<iteration>/ with time, dt and timeUnitSI.
  Group iteration(double time, double dt, double time_unit_si);
  std::filesystem::path commit();

 private:
  OutputFile out_;
  std::uint64_t iteration_;
};

}  // namespace tessera::io::openpmd
