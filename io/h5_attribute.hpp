#pragma once
// Attributes on groups (a file's attributes are those of its root group) and datasets:
// numeric scalars, numeric vectors, strings and string vectors. Writing replaces an
// attribute of the same name. All calls are collective with identical values on every rank.
//
// Reading is strict about the type: an attribute written as int64 is refused when read as
// int32 (InputError naming the attribute, its object and the file), so nothing is silently
// narrowed. write_attribute writes strings fixed-length (UTF-8, null-padded);
// write_vlen_attribute writes variable-length UTF-8 strings (h5py reads them as str, h5dump
// shows them without padding: column names, units, provenance). Both kinds, and those written by
// other tools (h5py), read back with read_attribute.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/h5_file.hpp"
#include "io/h5_types.hpp"

namespace tessera::io {

bool has_attribute(const Object& obj, std::string_view name);
void remove_attribute(const Object& obj, std::string_view name);

void write_attribute(const Object& obj, std::string_view name, std::string_view value);
inline void write_attribute(const Object& obj, std::string_view name, const char* value) {
  write_attribute(obj, name, std::string_view(value));
}
void write_attribute(const Object& obj, std::string_view name, const std::vector<std::string>& values);
// Variable-length UTF-8: a scalar string, or a 1D array of strings (the null space when empty).
void write_vlen_attribute(const Object& obj, std::string_view name, std::string_view value);
void write_vlen_attribute(const Object& obj, std::string_view name, const std::vector<std::string>& values);
// True when attribute `name` holds variable-length strings (InputError when it is missing).
bool is_vlen_string_attribute(const Object& obj, std::string_view name);
// Fixed-length ASCII (null-padded), the strings of the openPMD standard's HDF5 mapping (its
// readers, yt's among them, decode them as bytes). std::invalid_argument when a value holds a
// byte outside 7-bit ASCII.
void write_ascii_attribute(const Object& obj, std::string_view name, std::string_view value);
void write_ascii_attribute(const Object& obj, std::string_view name, const std::vector<std::string>& values);

namespace detail {
struct AttributeShape {
  ElementType type = ElementType::other;
  std::int64_t count = 0;  // elements (1 for a scalar)
  bool scalar = false;
};
AttributeShape attribute_shape(const Object& obj, std::string_view name);
void write_numeric_attribute(const Object& obj, std::string_view name, ElementType type, const void* data,
                             std::int64_t count, bool scalar);
void read_numeric_attribute(const Object& obj, std::string_view name, ElementType type, void* data,
                            std::int64_t count);
std::vector<std::string> read_string_attribute(const Object& obj, std::string_view name, bool want_scalar);
}  // namespace detail

template <class T>
  requires is_h5_numeric_v<T>
void write_attribute(const Object& obj, std::string_view name, T value) {
  detail::write_numeric_attribute(obj, name, element_type_of<T>(), &value, 1, true);
}

template <class T>
  requires is_h5_numeric_v<T>
void write_attribute(const Object& obj, std::string_view name, std::span<const T> values) {
  detail::write_numeric_attribute(obj, name, element_type_of<T>(), values.data(),
                                  static_cast<std::int64_t>(values.size()), false);
}
template <class T>
  requires is_h5_numeric_v<T>
void write_attribute(const Object& obj, std::string_view name, const std::vector<T>& values) {
  write_attribute(obj, name, std::span<const T>(values));
}

template <class T>
struct is_std_vector : std::false_type {};
template <class T>
struct is_std_vector<std::vector<T>> : std::true_type {};

// read_attribute<double>(obj, "time"), read_attribute<std::string>(obj, "solver"),
// read_attribute<std::vector<std::uint64_t>>(obj, "rng_state"),
// read_attribute<std::vector<std::string>>(obj, "columns").
// A missing attribute or a different type or shape throws InputError naming it.
template <class T>
T read_attribute(const Object& obj, std::string_view name) {
  if constexpr (std::is_same_v<T, std::string>) {
    return detail::read_string_attribute(obj, name, true).front();
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return detail::read_string_attribute(obj, name, false);
  } else if constexpr (is_std_vector<T>::value) {
    using V = typename T::value_type;
    const auto shape = detail::attribute_shape(obj, name);
    T out(static_cast<std::size_t>(shape.count));
    detail::read_numeric_attribute(obj, name, element_type_of<V>(), out.data(), shape.count);
    return out;
  } else {
    T out{};
    detail::read_numeric_attribute(obj, name, element_type_of<T>(), &out, 1);
    return out;
  }
}

}  // namespace tessera::io
