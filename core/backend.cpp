#include "core/backend.hpp"

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/error.hpp"

namespace tessera {

std::string_view to_string(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

BackendRequest parse_backend(std::string_view text, std::string_view where) {
  if (text == "auto") return BackendRequest::auto_select;
  if (text == "cpu") return BackendRequest::cpu;
  if (text == "cuda") return BackendRequest::cuda;
  throw InputError(fmt::format("{}: unknown backend '{}' (expected auto, cpu or cuda)", where, text));
}

int visible_device_count() {
#if defined(TESSERA_HAVE_CUDA)
  int n = 0;
  // No driver or no device is not an error here: it means "no GPU", and auto picks the CPU.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

Backend resolve_backend(BackendRequest request, std::string_view where) {
  // Where the request came from decides how to undo it: a deck key or the command line.
  const bool from_command_line = where.starts_with("--");
  const std::string instead =
      from_command_line ? "to run on the CPU, use --backend cpu (or --backend auto: a GPU where one is visible, "
                          "else the CPU)"
                        : "to run on the CPU, pass --backend cpu (or set backend = \"auto\" in the deck: a GPU "
                          "where one is visible, else the CPU)";
  switch (request) {
    case BackendRequest::cpu:
      return Backend::cpu;
    case BackendRequest::cuda:
      if (!cuda_compiled())
        throw InputError(fmt::format("{}: backend 'cuda' requested, but this tessera was built without CUDA "
                                     "(configure with -DTESSERA_CUDA=ON on a machine with the CUDA toolkit); {}",
                                     where, instead));
      if (visible_device_count() == 0)
        throw InputError(fmt::format("{}: backend 'cuda' requested, but no CUDA device is visible to this rank "
                                     "(check CUDA_VISIBLE_DEVICES and the job's GPU request); {}",
                                     where, instead));
      return Backend::cuda;
    case BackendRequest::auto_select:
      break;
  }
  return visible_device_count() > 0 ? Backend::cuda : Backend::cpu;
}

}  // namespace tessera
