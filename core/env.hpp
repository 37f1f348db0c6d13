#pragma once
// Benchmark knobs from the environment: comma-separated lists such as
// TESSERA_BENCH_FDTD_SIZES="256,512". Empty items are dropped.
#include <optional>
#include <string>
#include <vector>

namespace tessera {

// The items of variable `name`, or nullopt when it is not set (set but empty: an empty list).
std::optional<std::vector<std::string>> env_list(const char* name);

// The same list as integers; throws InputError naming the variable and the item otherwise.
std::optional<std::vector<long long>> env_integers(const char* name);

}  // namespace tessera
