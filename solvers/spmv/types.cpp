#include "solvers/spmv/types.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace tessera::spmv {
namespace {
struct VariantName {
  Variant v;
  const char* name;
};
constexpr VariantName kVariants[] = {
    {Variant::automatic, "auto"},         {Variant::csr_scalar, "csr-scalar"}, {Variant::csr_vector, "csr-vector"},
    {Variant::coo_segmented, "coo-segmented"}, {Variant::hybrid, "hybrid"},  {Variant::merge_path, "merge-path"},
    {Variant::csr_binned, "csr-binned"},      {Variant::cusparse, "cusparse"},
};
}  // namespace

std::string_view to_string(Variant v) {
  for (const auto& n : kVariants)
    if (n.v == v) return n.name;
  return "?";
}

Variant parse_variant(std::string_view text) {
  for (const auto& n : kVariants)
    if (text == n.name) return n.v;
  throw std::invalid_argument(fmt::format("unknown spmv variant '{}'", text));
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const auto& n : kVariants) out.emplace_back(n.name);
  return out;
}

bool runs_on_host(Variant v) { return v != Variant::cusparse; }

std::string_view to_string(HybridRule r) { return r == HybridRule::third ? "third" : "percentile80"; }

HybridRule parse_hybrid_rule(std::string_view text) {
  if (text == "third") return HybridRule::third;
  if (text == "percentile80") return HybridRule::percentile80;
  throw std::invalid_argument(fmt::format("unknown hybrid rule '{}'", text));
}

std::string_view to_string(Precision p) { return p == Precision::float64 ? "float64" : "float32"; }

}  // namespace tessera::spmv
