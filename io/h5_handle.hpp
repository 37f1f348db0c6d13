#pragma once
// Handle: owns one HDF5 id of any kind (file, group, dataset, dataspace, datatype, attribute,
// property list) and closes it with the matching H5?close, chosen by H5Iget_type, so no id
// leaks. Move-only. Library-owned ids (H5T_NATIVE_*, H5P_DEFAULT) must not be wrapped.
#include <hdf5.h>

#include <utility>

namespace tessera::io {

class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }

  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }

  // Closes now; returns false when HDF5 reported a failure (the id is given up either way).
  bool close() noexcept;
  void reset() noexcept { close(); }
  // Gives up ownership without closing.
  hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

}  // namespace tessera::io
