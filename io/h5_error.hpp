#pragma once
// Errors of the HDF5 layer. HDF5's automatic printing of its error stack is turned off
// (it would print one copy per rank, interleaved); instead every failed call becomes an
// exception whose message names the file, the object and HDF5's own description of what
// went wrong (the error stack, walked with H5Ewalk).
//
//  - H5Error (a runtime error): an HDF5 call failed while reading or writing.
//  - InputError (core/error.hpp): the file is not what the caller needs: missing, not HDF5,
//    truncated, a missing dataset, a wrong element type or extent. The user can fix these.
#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera::io {

class H5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

// Opens the library once per process and silences its automatic error printing.
void init_hdf5();

// HDF5's description of the current error stack ("outer: ...; inner: ..."), then clears it.
std::string take_error_stack();

// Builds "<action> <object> in <file>: <stack>" and throws H5Error.
[[noreturn]] void throw_h5(std::string_view action, std::string_view object, std::string_view file);

// Return-code checks: negative ids / statuses throw H5Error with the context given.
inline hid_t check_id(hid_t id, std::string_view action, std::string_view object, std::string_view file) {
  if (id < 0) throw_h5(action, object, file);
  return id;
}
inline herr_t check_status(herr_t rc, std::string_view action, std::string_view object, std::string_view file) {
  if (rc < 0) throw_h5(action, object, file);
  return rc;
}

}  // namespace detail
}  // namespace tessera::io
