#include "io/h5_attribute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace tessera::io {
namespace {

std::string describe(const Object& obj, std::string_view name) {
  return fmt::format("attribute '{}' of {}", name, obj.name());
}

Handle open_attribute(const Object& obj, std::string_view name) {
  const std::string n(name);
  const htri_t e = H5Aexists(obj.id(), n.c_str());
  if (e < 0) detail::throw_h5("look up", describe(obj, name), obj.file_name());
  if (e == 0) throw InputError(fmt::format("{} in {} has no attribute '{}'", obj.name(), obj.file_name(), name));
  return Handle(detail::check_id(H5Aopen(obj.id(), n.c_str(), H5P_DEFAULT), "open", describe(obj, name),
                                 obj.file_name()));
}

// Creates (replacing any old one) attribute `name` of `type` over `space`.
Handle create_attribute(const Object& obj, std::string_view name, hid_t type, hid_t space) {
  const std::string n(name);
  const htri_t e = H5Aexists(obj.id(), n.c_str());
  if (e < 0) detail::throw_h5("look up", describe(obj, name), obj.file_name());
  if (e > 0) detail::check_status(H5Adelete(obj.id(), n.c_str()), "replace", describe(obj, name), obj.file_name());
  return Handle(detail::check_id(H5Acreate2(obj.id(), n.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "create",
                                 describe(obj, name), obj.file_name()));
}

// A dataspace of `count` elements: scalar, a 1D vector, or the null space for an empty vector
// (a zero-length simple space is not portable to every reader).
Handle make_space(std::int64_t count, bool scalar, const Object& obj, std::string_view name) {
  hid_t s;
  if (scalar) {
    s = H5Screate(H5S_SCALAR);
  } else if (count == 0) {
    s = H5Screate(H5S_NULL);
  } else {
    const hsize_t dims[1] = {static_cast<hsize_t>(count)};
    s = H5Screate_simple(1, dims, nullptr);
  }
  return Handle(detail::check_id(s, "create a dataspace for", describe(obj, name), obj.file_name()));
}

detail::AttributeShape shape_of(hid_t attr, const Object& obj, std::string_view name) {
  detail::AttributeShape shape;
  Handle type(detail::check_id(H5Aget_type(attr), "read the type of", describe(obj, name), obj.file_name()));
  shape.type = classify_type(type);
  Handle space(detail::check_id(H5Aget_space(attr), "read the dataspace of", describe(obj, name), obj.file_name()));
  const H5S_class_t cls = H5Sget_simple_extent_type(space);
  shape.scalar = cls == H5S_SCALAR;
  if (cls == H5S_NULL) {
    shape.count = 0;
  } else {
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0) detail::throw_h5("count the elements of", describe(obj, name), obj.file_name());
    shape.count = n;
  }
  return shape;
}

}  // namespace

bool has_attribute(const Object& obj, std::string_view name) {
  const std::string n(name);
  const htri_t e = H5Aexists(obj.id(), n.c_str());
  if (e < 0) detail::throw_h5("look up", describe(obj, name), obj.file_name());
  return e > 0;
}

void remove_attribute(const Object& obj, std::string_view name) {
  const std::string n(name);
  detail::check_status(H5Adelete(obj.id(), n.c_str()), "remove", describe(obj, name), obj.file_name());
}

void write_attribute(const Object& obj, std::string_view name, std::string_view value) {
  Handle type = string_type(value.size());
  Handle space = make_space(1, true, obj, name);
  Handle attr = create_attribute(obj, name, type, space);
  // The type is at least 1 byte; an empty string writes one NUL.
  std::string buf(value);
  buf.resize(std::max<std::size_t>(value.size(), 1), '\0');
  detail::check_status(H5Awrite(attr, type, buf.data()), "write", describe(obj, name), obj.file_name());
}

void write_attribute(const Object& obj, std::string_view name, const std::vector<std::string>& values) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size());
  Handle type = string_type(width);
  Handle space = make_space(static_cast<std::int64_t>(values.size()), false, obj, name);
  Handle attr = create_attribute(obj, name, type, space);
  if (values.empty()) return;
  std::string buf(width * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) buf.replace(i * width, values[i].size(), values[i]);
  detail::check_status(H5Awrite(attr, type, buf.data()), "write", describe(obj, name), obj.file_name());
}

namespace {

// One fixed-length ASCII string per element, `width` bytes each, null-padded.
void write_ascii(const Object& obj, std::string_view name, const std::vector<std::string>& values, bool scalar) {
  std::size_t width = 1;
  for (const auto& v : values) {
    width = std::max(width, v.size());
    if (std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) > 0x7f; }))
      throw std::invalid_argument(fmt::format("{}: '{}' is not ASCII", describe(obj, name), v));
  }
  Handle type = string_type(width);
  detail::check_status(H5Tset_cset(type, H5T_CSET_ASCII), "set the character set of", describe(obj, name),
                       obj.file_name());
  Handle space = make_space(static_cast<std::int64_t>(values.size()), scalar, obj, name);
  Handle attr = create_attribute(obj, name, type, space);
  if (values.empty()) return;
  std::string buf(width * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) buf.replace(i * width, values[i].size(), values[i]);
  detail::check_status(H5Awrite(attr, type, buf.data()), "write", describe(obj, name), obj.file_name());
}

}  // namespace

void write_ascii_attribute(const Object& obj, std::string_view name, std::string_view value) {
  write_ascii(obj, name, {std::string(value)}, true);
}

void write_ascii_attribute(const Object& obj, std::string_view name, const std::vector<std::string>& values) {
  write_ascii(obj, name, values, false);
}

namespace {

Handle vlen_string_type(const Object& obj, std::string_view name) {
  detail::init_hdf5();
  Handle t(detail::check_id(H5Tcopy(H5T_C_S1), "copy the string type for", describe(obj, name), obj.file_name()));
  detail::check_status(H5Tset_size(t, H5T_VARIABLE), "size a string type for", describe(obj, name), obj.file_name());
  detail::check_status(H5Tset_cset(t, H5T_CSET_UTF8), "set the character set of", describe(obj, name),
                       obj.file_name());
  return t;
}

void write_vlen(const Object& obj, std::string_view name, const std::vector<std::string>& values, bool scalar) {
  Handle type = vlen_string_type(obj, name);
  Handle space = make_space(static_cast<std::int64_t>(values.size()), scalar, obj, name);
  Handle attr = create_attribute(obj, name, type, space);
  if (values.empty()) return;
  std::vector<const char*> ptrs;
  ptrs.reserve(values.size());
  for (const auto& v : values) ptrs.push_back(v.c_str());
  detail::check_status(H5Awrite(attr, type, ptrs.data()), "write", describe(obj, name), obj.file_name());
}

}  // namespace

void write_vlen_attribute(const Object& obj, std::string_view name, std::string_view value) {
  write_vlen(obj, name, {std::string(value)}, true);
}

void write_vlen_attribute(const Object& obj, std::string_view name, const std::vector<std::string>& values) {
  write_vlen(obj, name, values, false);
}

bool is_vlen_string_attribute(const Object& obj, std::string_view name) {
  Handle attr = open_attribute(obj, name);
  Handle type(detail::check_id(H5Aget_type(attr), "read the type of", describe(obj, name), obj.file_name()));
  if (H5Tget_class(type) != H5T_STRING) return false;
  const htri_t v = H5Tis_variable_str(type);
  if (v < 0) detail::throw_h5("inspect the string type of", describe(obj, name), obj.file_name());
  return v > 0;
}

namespace detail {

AttributeShape attribute_shape(const Object& obj, std::string_view name) {
  Handle attr = open_attribute(obj, name);
  return shape_of(attr, obj, name);
}

void write_numeric_attribute(const Object& obj, std::string_view name, ElementType type, const void* data,
                             std::int64_t count, bool scalar) {
  Handle space = make_space(count, scalar, obj, name);
  Handle attr = create_attribute(obj, name, native_type(type), space);
  if (count == 0) return;
  check_status(H5Awrite(attr, native_type(type), data), "write", describe(obj, name), obj.file_name());
}

void read_numeric_attribute(const Object& obj, std::string_view name, ElementType type, void* data,
                            std::int64_t count) {
  Handle attr = open_attribute(obj, name);
  const AttributeShape shape = shape_of(attr, obj, name);
  if (shape.type != type)
    throw InputError(fmt::format("{} in {} has type {}, expected {}", describe(obj, name), obj.file_name(),
                                 to_string(shape.type), to_string(type)));
  if (shape.count != count)
    throw InputError(fmt::format("{} in {} has {} element(s), expected {}", describe(obj, name), obj.file_name(),
                                 shape.count, count));
  if (count == 0) return;
  check_status(H5Aread(attr, native_type(type), data), "read", describe(obj, name), obj.file_name());
}

std::vector<std::string> read_string_attribute(const Object& obj, std::string_view name, bool want_scalar) {
  Handle attr = open_attribute(obj, name);
  const AttributeShape shape = shape_of(attr, obj, name);
  if (shape.type != ElementType::string)
    throw InputError(fmt::format("{} in {} has type {}, expected string", describe(obj, name), obj.file_name(),
                                 to_string(shape.type)));
  if (want_scalar && shape.count != 1)
    throw InputError(fmt::format("{} in {} holds {} strings, expected one", describe(obj, name), obj.file_name(),
                                 shape.count));
  const auto n = static_cast<std::size_t>(shape.count);
  std::vector<std::string> out(n);
  if (n == 0) return out;

  Handle file_type(check_id(H5Aget_type(attr), "read the type of", describe(obj, name), obj.file_name()));
  const htri_t is_vlen = H5Tis_variable_str(file_type);
  if (is_vlen < 0) throw_h5("inspect the string type of", describe(obj, name), obj.file_name());
  if (is_vlen > 0) {
    // Variable-length strings (h5py's default): HDF5 allocates each; free them after copying.
    Handle mem(check_id(H5Tcopy(H5T_C_S1), "copy the string type for", describe(obj, name), obj.file_name()));
    check_status(H5Tset_size(mem, H5T_VARIABLE), "size a string type for", describe(obj, name), obj.file_name());
    // The file's character set (HDF5 converts no strings between ASCII and UTF-8).
    check_status(H5Tset_cset(mem, H5Tget_cset(file_type)), "set the character set for", describe(obj, name),
                 obj.file_name());
    std::vector<char*> ptrs(n, nullptr);
    check_status(H5Aread(attr, mem, ptrs.data()), "read", describe(obj, name), obj.file_name());
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = ptrs[i] ? ptrs[i] : "";
      H5free_memory(ptrs[i]);
    }
    return out;
  }
  // Fixed length: read with the file's own type (no conversion between character sets).
  const std::size_t width = H5Tget_size(file_type);
  std::string buf(width * n, '\0');
  check_status(H5Aread(attr, file_type, buf.data()), "read", describe(obj, name), obj.file_name());
  for (std::size_t i = 0; i < n; ++i) {
    std::string s = buf.substr(i * width, width);
    s.erase(std::find(s.begin(), s.end(), '\0'), s.end());  // null padding (or termination)
    out[i] = std::move(s);
  }
  return out;
}

}  // namespace detail
}  // namespace tessera::io
