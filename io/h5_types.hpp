#pragma once
// Element types: the HDF5 native type of a C++ type (h5_type<T>) and a small enum naming the
// types tessera stores, so a reader can refuse a dataset of the wrong type with a message
// such as "dataset /x has type int64, expected float32".
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "io/h5_handle.hpp"

namespace tessera::io {

enum class ElementType { int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, string, other };

std::string to_string(ElementType t);

// True for the arithmetic types datasets and attributes accept: 8..64-bit integers (signed or
// not, any spelling: long, long long, int64_t), float and double. char and bool are excluded
// on purpose (char is text: use the string functions; bool has no portable HDF5 type).
template <class T>
inline constexpr bool is_h5_numeric_v =
    (std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> && sizeof(T) <= 8) ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
constexpr ElementType element_type_of() {
  static_assert(is_h5_numeric_v<T>, "not a numeric type HDF5 datasets support");
  if constexpr (std::is_same_v<T, float>) return ElementType::float32;
  else if constexpr (std::is_same_v<T, double>) return ElementType::float64;
  else if constexpr (std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1) return ElementType::int8;
    else if constexpr (sizeof(T) == 2) return ElementType::int16;
    else if constexpr (sizeof(T) == 4) return ElementType::int32;
    else return ElementType::int64;
  } else {
    if constexpr (sizeof(T) == 1) return ElementType::uint8;
    else if constexpr (sizeof(T) == 2) return ElementType::uint16;
    else if constexpr (sizeof(T) == 4) return ElementType::uint32;
    else return ElementType::uint64;
  }
}

// The native (library-owned, never closed) HDF5 type of a numeric ElementType.
hid_t native_type(ElementType t);

// The native HDF5 type of T: H5T_NATIVE_INT8 ... H5T_NATIVE_DOUBLE.
template <class T>
hid_t h5_type() {
  return native_type(element_type_of<T>());
}

// Classifies an HDF5 datatype id (of a dataset or attribute).
ElementType classify_type(hid_t type);

// A fixed-length string type of `length` bytes (at least 1), UTF-8, null-padded: for string
// datasets (parallel HDF5 cannot write variable-length data into datasets collectively) and most
// attributes (h5py reads them as bytes). Column names, units and provenance strings are
// variable-length attributes (write_vlen_attribute in io/h5_attribute.hpp).
Handle string_type(std::size_t length);

}  // namespace tessera::io
