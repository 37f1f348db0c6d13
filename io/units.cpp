#include "io/units.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "io/h5_attribute.hpp"

namespace tessera::io {

void write_units(const Object& obj, std::string_view units) {
  if (units.empty())
    throw std::invalid_argument(fmt::format("{} in {}: empty units (\"1\" names a pure number)", obj.name(),
                                            obj.file_name()));
  write_vlen_attribute(obj, kUnitsAttribute, units);
}

std::string read_units(const Object& obj) {
  if (!has_attribute(obj, kUnitsAttribute)) return {};
  return read_attribute<std::string>(obj, kUnitsAttribute);
}

}  // namespace tessera::io
