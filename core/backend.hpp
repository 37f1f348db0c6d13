#pragma once
// Which implementation of a solver runs on this rank, and where buffers live.
#include <string>
#include <string_view>

namespace tessera {

enum class Backend { cpu, cuda };
enum class BackendRequest { auto_select, cpu, cuda };
enum class Memory { host, device };

std::string_view to_string(Backend b);
// Parses "auto", "cpu" or "cuda"; throws InputError naming `where` otherwise.
BackendRequest parse_backend(std::string_view text, std::string_view where = "backend");

// Whether this build has the CUDA backend compiled in.
constexpr bool cuda_compiled() {
#if defined(TESSERA_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

// Number of CUDA devices visible to this process (0 without CUDA, a driver or a device).
int visible_device_count();

// auto -> cuda when a device is visible, else cpu. A forced cuda without a device (or in a
// build without CUDA) throws InputError explaining why, naming `where` the request came from
// (`run.backend = "cuda" (deck.toml:7)`, `--backend cuda`) and how to run on the CPU instead.
Backend resolve_backend(BackendRequest request, std::string_view where = "--backend cuda");

inline Memory memory_of(Backend b) { return b == Backend::cuda ? Memory::device : Memory::host; }

}  // namespace tessera
