#include "solvers/scan/types.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace tessera::scan {
namespace {

constexpr std::array<std::pair<Variant, std::string_view>, 9> kVariants{{
    {Variant::automatic, "auto"},
    {Variant::cpu, "cpu"},
    {Variant::cpu_serial, "cpu-serial"},
    {Variant::hillis_steele, "hillis-steele"},
    {Variant::blelloch, "blelloch"},
    {Variant::blelloch_padded, "blelloch-padded"},
    {Variant::lookback, "lookback"},
    {Variant::cub, "cub"},
    {Variant::thrust, "thrust"},
}};

constexpr std::array<std::pair<ValueType, std::string_view>, 4> kTypes{{
    {ValueType::int32, "int32"},
    {ValueType::int64, "int64"},
    {ValueType::float32, "float32"},
    {ValueType::float64, "float64"},
}};

}  // namespace

std::string_view to_string(Mode m) { return m == Mode::inclusive ? "inclusive" : "exclusive"; }

std::string_view to_string(Variant v) {
  for (const auto& [variant, name] : kVariants)
    if (variant == v) return name;
  return "?";
}

std::string_view to_string(ValueType t) {
  for (const auto& [type, name] : kTypes)
    if (type == t) return name;
  return "?";
}

Mode parse_mode(std::string_view text) {
  if (text == "inclusive") return Mode::inclusive;
  if (text == "exclusive") return Mode::exclusive;
  throw std::invalid_argument("unknown scan mode '" + std::string(text) + "'");
}

Variant parse_variant(std::string_view text) {
  for (const auto& [variant, name] : kVariants)
    if (name == text) return variant;
  throw std::invalid_argument("unknown scan variant '" + std::string(text) + "'");
}

ValueType parse_value_type(std::string_view text) {
  for (const auto& [type, name] : kTypes)
    if (name == text) return type;
  throw std::invalid_argument("unknown scan value type '" + std::string(text) + "'");
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const auto& [variant, name] : kVariants) out.emplace_back(name);
  return out;
}

std::vector<Variant> device_variants() {
  return {Variant::lookback, Variant::cub, Variant::thrust, Variant::blelloch_padded, Variant::blelloch,
          Variant::hillis_steele};
}

std::size_t size_of(ValueType t) { return t == ValueType::int32 || t == ValueType::float32 ? 4 : 8; }

}  // namespace tessera::scan
