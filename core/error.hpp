#pragma once
// Error types and the process exit codes they map to. Every rank exits with the same code.
#include <stdexcept>
#include <string>

namespace tessera {

enum class ExitCode : int {
  ok = 0,
  runtime_error = 1,  // a failure while running (CUDA, MPI, HDF5, numerics)
  input_error = 2,    // bad deck, command line or input file: the user can fix it
  internal_error = 3, // a broken invariant: a bug in tessera
};

// Anything the user can fix: deck keys, values, missing files, malformed inputs.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A CUDA runtime or driver failure; the message names the call, file and line.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline ExitCode exit_code_for(const std::exception& e) {
  if (dynamic_cast<const InputError*>(&e)) return ExitCode::input_error;
  if (dynamic_cast<const std::logic_error*>(&e)) return ExitCode::internal_error;
  return ExitCode::runtime_error;
}

}  // namespace tessera
