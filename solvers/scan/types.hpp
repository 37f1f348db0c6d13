#pragma once
// The vocabulary of the scan library: what is summed (value types and their accumulators), how
// (inclusive or exclusive) and by which algorithm (variant). Shared by host and device code.
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/hd.hpp"

namespace tessera::scan {

enum class Mode { inclusive, exclusive };

// `automatic` resolves to lookback on the cuda backend and cpu on the cpu backend.
enum class Variant { automatic, cpu, cpu_serial, hillis_steele, blelloch, blelloch_padded, lookback, cub, thrust };

enum class ValueType { int32, int64, float32, float64 };

std::string_view to_string(Mode m);
std::string_view to_string(Variant v);
std::string_view to_string(ValueType t);
Mode parse_mode(std::string_view text);          // std::invalid_argument when unknown
Variant parse_variant(std::string_view text);    // "auto", "cpu", "cpu-serial", "lookback", ...
ValueType parse_value_type(std::string_view text);
std::vector<std::string> variant_names();        // as written in decks, "auto" first
std::size_t size_of(ValueType t);

// Runs on the host (cpu, cpu-serial) or needs a GPU (the others).
constexpr bool is_host_variant(Variant v) { return v == Variant::cpu || v == Variant::cpu_serial; }
// The GPU variants, in the order benchmarks and tests list them.
std::vector<Variant> device_variants();

template <class T>
constexpr ValueType value_type_of() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ValueType::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ValueType::int64;
  else if constexpr (std::is_same_v<T, float>) return ValueType::float32;
  else if constexpr (std::is_same_v<T, double>) return ValueType::float64;
  else static_assert(sizeof(T) == 0, "scan sums int32, int64, float32 and float64");
}

// The 64-bit type totals travel in between ranks (comm::exscan "in 64 bits"): int64 for the
// integer sums (an int32 sum's total wraps the same way modulo 2^32 when cast back), double
// for the floating-point ones.
template <class Out>
using wide_t = std::conditional_t<std::is_integral_v<Out>, std::int64_t, double>;

// Integer sums wrap modulo 2^bits (two's complement) exactly as the GPU's adds do, without the
// undefined behaviour of signed overflow; floating-point sums are plain IEEE adds. `a` is the
// earlier part of the sequence, so the order of a floating-point sum is the sequence order.
template <class T>
TESSERA_HD T scan_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// The input -> output pairs the library is built for: each type into itself, and int32 into
// int64 (so sums beyond 2^31 are exact). X(In, Out) is expanded once per pair.
#define TESSERA_SCAN_FOR_EACH_PAIR(X) \
  X(std::int32_t, std::int32_t)       \
  X(std::int32_t, std::int64_t)       \
  X(std::int64_t, std::int64_t)       \
  X(float, float)                     \
  X(double, double)

}  // namespace tessera::scan
