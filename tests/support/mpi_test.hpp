#pragma once
// Access to the process-wide comm::Context inside MPI tests (set up by mpi_gtest_main.cpp).
#include <cstdint>
#include <random>

#include "comm/context.hpp"

namespace tessera::test {

comm::Context& context();

// True when the test binary runs where a CUDA device is visible (gpu tests skip otherwise).
bool have_gpu();

// A deterministic generator for test data, distinct per seed.
inline std::mt19937_64 rng(std::uint64_t seed) { return std::mt19937_64(seed * 0x9E3779B97F4A7C15ull + 1); }

}  // namespace tessera::test

// Skips a gpu test with a visible reason when no device is present.
#define TESSERA_REQUIRE_GPU()                                                          \
  do {                                                                                 \
    if (!::tessera::test::have_gpu()) GTEST_SKIP() << "no CUDA device visible (gpu test)"; \
  } while (0)
