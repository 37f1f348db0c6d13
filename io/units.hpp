#pragma once
// Units: every dataset tessera writes carries a `units` attribute, a variable-length UTF-8
// string naming the unit of its values ("V/m", "A/m", "s", "m", "J", "TEPS", "1" for counts,
// ids and other dimensionless numbers; an N-body run's code units spelled out, such as
// "code_length (= 3.0857e+21 cm)"). A dataset that interleaves quantities (a checkpoint's
// x, y, z, m per body) lists them in that order, separated by ", ".
//
// Time series (io::TimeSeries) carry one unit per column instead: their `units` attribute is
// an array of strings parallel to `columns`.
//
// Collective, like every attribute write: the same value on every rank.
//
//   io::write_units(io::write_3d_checked<float>(root, "Ex", ...), "V/m");
#include <string>
#include <string_view>

#include "io/h5_file.hpp"

namespace tessera::io {

inline constexpr const char* kUnitsAttribute = "units";
// The unit of pure numbers: counts, ids, indices, ratios, residuals.
inline constexpr const char* kDimensionless = "1";

// Writes (replacing) the `units` attribute of `obj`; std::invalid_argument when `units` is
// empty (say "1" for a pure number).
void write_units(const Object& obj, std::string_view units);
// The scalar `units` attribute of `obj`, or "" when it has none.
std::string read_units(const Object& obj);

}  // namespace tessera::io
