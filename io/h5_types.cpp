#include "io/h5_types.hpp"

#include <algorithm>

#include "io/h5_error.hpp"

namespace tessera::io {

std::string to_string(ElementType t) {
  switch (t) {
    case ElementType::int8: return "int8";
    case ElementType::uint8: return "uint8";
    case ElementType::int16: return "int16";
    case ElementType::uint16: return "uint16";
    case ElementType::int32: return "int32";
    case ElementType::uint32: return "uint32";
    case ElementType::int64: return "int64";
    case ElementType::uint64: return "uint64";
    case ElementType::float32: return "float32";
    case ElementType::float64: return "float64";
    case ElementType::string: return "string";
    case ElementType::other: break;
  }
  return "an unsupported type";
}

hid_t native_type(ElementType t) {
  detail::init_hdf5();  // H5T_NATIVE_* are only valid once the library is open
  switch (t) {
    case ElementType::int8: return H5T_NATIVE_INT8;
    case ElementType::uint8: return H5T_NATIVE_UINT8;
    case ElementType::int16: return H5T_NATIVE_INT16;
    case ElementType::uint16: return H5T_NATIVE_UINT16;
    case ElementType::int32: return H5T_NATIVE_INT32;
    case ElementType::uint32: return H5T_NATIVE_UINT32;
    case ElementType::int64: return H5T_NATIVE_INT64;
    case ElementType::uint64: return H5T_NATIVE_UINT64;
    case ElementType::float32: return H5T_NATIVE_FLOAT;
    case ElementType::float64: return H5T_NATIVE_DOUBLE;
    default: break;
  }
  throw std::logic_error("native_type: not a numeric element type");
}

ElementType classify_type(hid_t type) {
  const H5T_class_t cls = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  if (cls == H5T_STRING) return ElementType::string;
  if (cls == H5T_FLOAT) {
    if (size == 4) return ElementType::float32;
    if (size == 8) return ElementType::float64;
    return ElementType::other;
  }
  if (cls == H5T_INTEGER) {
    const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
    switch (size) {
      case 1: return is_signed ? ElementType::int8 : ElementType::uint8;
      case 2: return is_signed ? ElementType::int16 : ElementType::uint16;
      case 4: return is_signed ? ElementType::int32 : ElementType::uint32;
      case 8: return is_signed ? ElementType::int64 : ElementType::uint64;
      default: break;
    }
  }
  if (cls < 0) H5Eclear2(H5E_DEFAULT);
  return ElementType::other;
}

Handle string_type(std::size_t length) {
  detail::init_hdf5();
  Handle t(detail::check_id(H5Tcopy(H5T_C_S1), "copy the string type", "", ""));
  detail::check_status(H5Tset_size(t, std::max<std::size_t>(length, 1)), "size a string type", "", "");
  detail::check_status(H5Tset_strpad(t, H5T_STR_NULLPAD), "pad a string type", "", "");
  detail::check_status(H5Tset_cset(t, H5T_CSET_UTF8), "set a string character set", "", "");
  return t;
}

}  // namespace tessera::io
