#pragma once
// Names shared by the whole spmv solver: the kernel variants, the hybrid split rules, the
// value precision, and the index types of a rank's blocks.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"

namespace tessera::spmv {

// Column indices inside one rank's blocks (local columns, or positions in the ghost list):
// 32-bit, as GPU kernels want them (a rank's rows plus ghosts must stay below 2^31; global
// rows, columns and nonzeros are 64-bit). Row pointers are 64-bit.
using local_index = std::int32_t;

enum class Variant { automatic, csr_scalar, csr_vector, coo_segmented, hybrid, merge_path, csr_binned, cusparse };
std::string_view to_string(Variant v);
Variant parse_variant(std::string_view text);  // std::invalid_argument for an unknown name
// Every name a deck may use ("auto", "csr-scalar", ...).
std::vector<std::string> variant_names();
// Variants the cpu engine runs (all but cusparse, which is NVIDIA's library).
bool runs_on_host(Variant v);
// Where the hybrid format cuts a block into its ELL part and its COO tail:
//  third:        the seed's rule: the widest ELL width w such that at least 1/3 of the rows
//                still have a nonzero at position w (rows with at least w entries);
//  percentile80: w = the 80th percentile of the row lengths (at least 80% of the rows fit).
enum class HybridRule { third, percentile80 };
std::string_view to_string(HybridRule r);
HybridRule parse_hybrid_rule(std::string_view text);

enum class Precision { float64, float32 };
std::string_view to_string(Precision p);

}  // namespace tessera::spmv
